import AttendanceModels
import Foundation

/// Everything a timesheet is computed from, read in one go by `TimesheetService`. The computation
/// (`Timesheet.compute`) is pure: the same input gives the same rows.
public struct TimesheetInput: Sendable {
    public var from: LocalDate
    public var through: LocalDate
    public var now: Date
    public var sites: [SiteID: TimesheetSite]
    public var schedules: [ScheduleID: WorkSchedule]
    public var assignments: [ScheduleAssignment]
    public var leave: [LeaveDay]
    /// The sessions that may touch the range (voided ones are skipped).
    public var sessions: [SessionRecord]
    /// Employees with at least one device that is not revoked.
    public var employeesWithDevices: Set<UserID>
    /// The last time any of an employee's devices was heard from.
    public var lastHeard: [UserID: Date]
    /// Sessions with a correction request awaiting a decision.
    public var pendingRequestSessions: Set<SessionKey>
    /// Requests for a missing session awaiting a decision: the employee, the site and the
    /// requested check-in.
    public var pendingAdditions: [PendingAddition]

    public struct PendingAddition: Hashable, Sendable {
        public var userId: UserID
        public var siteId: SiteID
        public var checkInAt: Date

        public init(userId: UserID, siteId: SiteID, checkInAt: Date) {
            self.userId = userId
            self.siteId = siteId
            self.checkInAt = checkInAt
        }
    }

    public init(
        from: LocalDate, through: LocalDate, now: Date, sites: [SiteID: TimesheetSite],
        schedules: [ScheduleID: WorkSchedule] = [:], assignments: [ScheduleAssignment] = [], leave: [LeaveDay] = [],
        sessions: [SessionRecord], employeesWithDevices: Set<UserID> = [], lastHeard: [UserID: Date] = [:],
        pendingRequestSessions: Set<SessionKey> = [], pendingAdditions: [PendingAddition] = []
    ) {
        self.from = from
        self.through = through
        self.now = now
        self.sites = sites
        self.schedules = schedules
        self.assignments = assignments
        self.leave = leave
        self.sessions = sessions
        self.employeesWithDevices = employeesWithDevices
        self.lastHeard = lastHeard
        self.pendingRequestSessions = pendingRequestSessions
        self.pendingAdditions = pendingAdditions
    }

    /// The instants a query must read sessions for: a week and two days either side of the range
    /// (weekly totals use whole weeks; a shift can start the day before).
    public static func sessionWindow(from: LocalDate, through: LocalDate) -> ClosedRange<Date> {
        let first = from.weekStart.adding(days: -2)
        let last = through.weekStart.adding(days: 9)
        return Date(
            timeIntervalSince1970: Double(first.dayNumber) * 86_400 - 86_400)...Date(
                timeIntervalSince1970: Double(last.dayNumber) * 86_400 + 86_400)
    }
}
