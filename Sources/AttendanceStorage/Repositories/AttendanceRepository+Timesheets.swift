import AttendanceModels
import AttendanceRules
import Foundation

/// Timesheet settings and what a timesheet reads, part of every repository.
public protocol TimesheetRepository: Sendable {
    /// Inserts or replaces a setting, with its ledger row, in one transaction.
    func putTimesheetSetting(_ row: TimesheetSettingRow, audit: LedgerEvent) async throws
    /// Removes a setting with its ledger row; false when there was none (and nothing is written).
    func deleteTimesheetSetting(kind: TimesheetSettingRow.Kind, id: String, audit: LedgerEvent) async throws -> Bool
    func timesheetSetting(kind: TimesheetSettingRow.Kind, id: String) async throws -> TimesheetSettingRow?
    /// The settings of a kind, in id order; dated kinds only within `dates` when it is given.
    func timesheetSettings(
        kind: TimesheetSettingRow.Kind, dates: ClosedRange<LocalDate>?
    ) async throws
        -> [TimesheetSettingRow]
    /// The sessions of `users` (at most 500) that were open at some point in `window` (voided ones
    /// included), in no particular order; only at `siteId` when given.
    func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws
        -> [SessionRecord]
    /// Every pending request's session, or for a missing session its employee, site and check-in.
    func pendingRequestTargets() async throws -> [PendingRequestTarget]
}

/// What a pending correction request points at.
public struct PendingRequestTarget: Hashable, Sendable {
    public var userId: UserID
    public var sessionKey: SessionKey?
    public var siteId: SiteID?
    public var checkInAt: Date?

    public init(userId: UserID, sessionKey: SessionKey?, siteId: SiteID?, checkInAt: Date?) {
        self.userId = userId
        self.sessionKey = sessionKey
        self.siteId = siteId
        self.checkInAt = checkInAt
    }
}
