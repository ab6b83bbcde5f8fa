import AttendanceModels
import AttendanceRules
import Foundation

/// Timesheet settings and what a timesheet reads, part of every repository.
public protocol TimesheetRepository: Sendable {
    /// Inserts or replaces a setting, with its ledger row, in one transaction.
    func putTimesheetSetting(_ setting: TimesheetSetting, updatedAt: Date, audit: LedgerEvent) async throws
    /// Removes a setting with its ledger row; false when there was none (and nothing is written).
    func deleteTimesheetSetting(_ key: TimesheetSettingKey, audit: LedgerEvent) async throws -> Bool
    func timesheetSetting(_ key: TimesheetSettingKey) async throws -> TimesheetSetting?
    /// Every schedule, in id order.
    func schedules() async throws -> [WorkSchedule]
    /// The assignments (of `userId` when given), in id order.
    func assignments(userId: UserID?) async throws -> [ScheduleAssignment]
    /// Every site's saved rules; a site without is not in it.
    func siteRules() async throws -> [SiteID: SiteRules]
    /// The holidays (of `siteId`, within `dates`, when given), by site and date.
    func holidays(siteId: SiteID?, dates: ClosedRange<LocalDate>?) async throws -> [Holiday]
    /// The leave days (of `userId`, within `dates`, when given), by employee and date.
    func leaveDays(userId: UserID?, dates: ClosedRange<LocalDate>?) async throws -> [LeaveDay]
    /// Every pay cycle setting, by the day it takes effect.
    func payCycles() async throws -> [PayCycleSetting]
    /// The sessions of `users` (at most 500) that were open at some point in `window` (voided ones
    /// included), in no particular order; only at `siteId` when given.
    func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws
        -> [SessionRecord]
    /// Every pending request's session, or for a missing session its employee, site and check-in.
    func pendingRequestTargets() async throws -> [PendingRequestTarget]
}
