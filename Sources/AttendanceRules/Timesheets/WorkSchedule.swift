import AttendanceModels
import Foundation

/// One weekday of a schedule: when work is expected to start and end, by the site's wall clock,
/// and how many minutes are expected. An end at or before the start ends on the next day
/// (a night shift 22:00–06:00).
public struct ScheduledShift: Hashable, Sendable {
    /// Minutes after local midnight, 0..<1440.
    public var startMinute: Int
    public var endMinute: Int
    public var expectedMinutes: Int

    public init(startMinute: Int, endMinute: Int, expectedMinutes: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
        self.expectedMinutes = expectedMinutes
    }

    /// The shift's end in minutes after the start day's midnight (past 1440 for a night shift).
    public var endMinuteFromStartDay: Int { endMinute > startMinute ? endMinute : endMinute + 1440 }
}

/// A work-schedule template: the shifts of a week. A weekday without a shift is a day off.
public struct WorkSchedule: Hashable, Sendable {
    public var id: ScheduleID
    public var name: String
    public var shifts: [Weekday: ScheduledShift]

    public init(id: ScheduleID, name: String, shifts: [Weekday: ScheduledShift]) {
        self.id = id
        self.name = name
        self.shifts = shifts
    }
}

/// An employee works `scheduleId` at `siteId` from `from` through `through` (open-ended if nil).
public struct ScheduleAssignment: Hashable, Sendable {
    public var id: AssignmentID
    public var userId: UserID
    public var siteId: SiteID
    public var scheduleId: ScheduleID
    public var from: LocalDate
    public var through: LocalDate?

    public init(
        id: AssignmentID, userId: UserID, siteId: SiteID, scheduleId: ScheduleID, from: LocalDate,
        through: LocalDate? = nil
    ) {
        self.id = id
        self.userId = userId
        self.siteId = siteId
        self.scheduleId = scheduleId
        self.from = from
        self.through = through
    }

    public func covers(_ date: LocalDate) -> Bool { from <= date && through.map { date <= $0 } ?? true }
}

/// A day an admin marked as leave for an employee at a site: never `absent`.
public struct LeaveDay: Hashable, Sendable {
    public var userId: UserID
    public var siteId: SiteID
    public var date: LocalDate
    /// `vacation`, `sick`, `unpaid`, `other`…: the employer's words, kept as given.
    public var type: String
    public var note: String?

    public init(userId: UserID, siteId: SiteID, date: LocalDate, type: String, note: String? = nil) {
        self.userId = userId
        self.siteId = siteId
        self.date = date
        self.type = type
        self.note = note
    }
}

/// What a timesheet needs to know about a site.
public struct TimesheetSite: Sendable {
    public var id: SiteID
    public var timeZone: TimeZone
    public var policy: TimesheetPolicy
    /// The schedule of employees who work here without an assignment (nil: none).
    public var defaultScheduleId: ScheduleID?
    /// Public holidays and closures: local date → name.
    public var holidays: [LocalDate: String]

    public init(
        id: SiteID, timeZone: TimeZone, policy: TimesheetPolicy = TimesheetPolicy(),
        defaultScheduleId: ScheduleID? = nil,
        holidays: [LocalDate: String] = [:]
    ) {
        self.id = id
        self.timeZone = timeZone
        self.policy = policy
        self.defaultScheduleId = defaultScheduleId
        self.holidays = holidays
    }
}
