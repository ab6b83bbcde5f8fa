import AttendanceModels
import Foundation

/// One stored timesheet setting: a schedule, an assignment, a site's rules, a holiday or a leave
/// day, its body the JSON of `TimesheetSettingCodec`. One table holds them all, so the settings'
/// rules live in the pure code above it and the two backends only store rows.
public struct TimesheetSettingRow: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case schedule, assignment, siteRules, holiday, leave, payCycle
    }

    public var kind: Kind
    /// Unique within the kind: a schedule's id, `<siteId>/<date>` for a holiday…
    public var id: String
    public var userId: UserID?
    public var siteId: SiteID?
    /// The day it is about (holidays and leave), for range reads.
    public var date: LocalDate?
    public var body: Data
    public var updatedAt: Date

    public init(
        kind: Kind, id: String, userId: UserID? = nil, siteId: SiteID? = nil, date: LocalDate? = nil, body: Data,
        updatedAt: Date
    ) {
        self.kind = kind
        self.id = id
        self.userId = userId
        self.siteId = siteId
        self.date = date
        self.body = body
        self.updatedAt = updatedAt
    }
}

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
