import AttendanceModels
import Foundation

/// What a day was for an employee at a site.
public enum DayStatus: String, CaseIterable, Hashable, Sendable {
    case present, late, halfDay, absent, off, leave
}

/// Why a day's figures may still change or need a look.
public enum DayFlag: String, CaseIterable, Hashable, Sendable, Comparable {
    /// A session of the day is still open: counted to its last evidence.
    case open
    /// An open session has not been heard from for an hour: its end is proposed, not known.
    case endUnconfirmed
    /// A session was checked in or out by hand in the app.
    case manual
    /// A session was corrected, added or voided by a person.
    case corrected
    /// A correction request for a session of the day awaits a decision.
    case pendingRequest
    /// A device of the employee has not been heard from since the day ended (up to 72 h): events
    /// may still be on the phone.
    case provisional
    /// The day is in a locked pay period: the row is as it was when locked; later changes show
    /// as the period's exceptions.
    case locked

    public static func < (lhs: DayFlag, rhs: DayFlag) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One timesheet row: an employee, a site and a local day (docs/TIMESHEETS.md, "Rows").
public struct TimesheetDay: Hashable, Sendable {
    public var userId: UserID
    public var siteId: SiteID
    public var date: LocalDate
    public var timeZone: String
    /// The UTC offsets in effect during the day, in seconds east (two on a DST day).
    public var utcOffsetSeconds: [Int]
    /// The earliest check-in and the latest check-out of the day's sessions (instants; with the
    /// calendar rule a night shift's check-in can be on the day before).
    public var firstIn: Date?
    public var lastOut: Date?
    /// For a day whose session's end is unconfirmed: its last evidence, the end a person confirms.
    public var proposedEnd: Date?
    public var workedMinutes: Int
    public var measuredBreakMinutes: Int
    public var deductedBreakMinutes: Int
    /// Worked minutes that count toward overtime: without the time before the scheduled start,
    /// unless the site counts early arrivals.
    public var eligibleMinutes: Int
    /// Nil when no schedule applies.
    public var expectedMinutes: Int?
    public var scheduledStart: Date?
    public var scheduledEnd: Date?
    public var lateMinutes: Int
    public var earlyMinutes: Int
    /// Against the day's expected minutes; nil when no schedule applies.
    public var overtimeMinutes: Int?
    public var sessionCount: Int
    public var status: DayStatus
    public var flags: Set<DayFlag>
    public var holiday: String?
    public var leaveType: String?
    public var leaveNote: String?

    package init(
        userId: UserID, siteId: SiteID, date: LocalDate, timeZone: String, utcOffsetSeconds: [Int],
        firstIn: Date? = nil, lastOut: Date? = nil, proposedEnd: Date? = nil, workedMinutes: Int,
        measuredBreakMinutes: Int, deductedBreakMinutes: Int, eligibleMinutes: Int, expectedMinutes: Int? = nil,
        scheduledStart: Date? = nil, scheduledEnd: Date? = nil, lateMinutes: Int, earlyMinutes: Int,
        overtimeMinutes: Int? = nil, sessionCount: Int, status: DayStatus, flags: Set<DayFlag>,
        holiday: String? = nil, leaveType: String? = nil, leaveNote: String? = nil
    ) {
        self.userId = userId
        self.siteId = siteId
        self.date = date
        self.timeZone = timeZone
        self.utcOffsetSeconds = utcOffsetSeconds
        self.firstIn = firstIn
        self.lastOut = lastOut
        self.proposedEnd = proposedEnd
        self.workedMinutes = workedMinutes
        self.measuredBreakMinutes = measuredBreakMinutes
        self.deductedBreakMinutes = deductedBreakMinutes
        self.eligibleMinutes = eligibleMinutes
        self.expectedMinutes = expectedMinutes
        self.scheduledStart = scheduledStart
        self.scheduledEnd = scheduledEnd
        self.lateMinutes = lateMinutes
        self.earlyMinutes = earlyMinutes
        self.overtimeMinutes = overtimeMinutes
        self.sessionCount = sessionCount
        self.status = status
        self.flags = flags
        self.holiday = holiday
        self.leaveType = leaveType
        self.leaveNote = leaveNote
    }

    public var sortedFlags: [DayFlag] { flags.sorted() }
}

/// An employee's ISO week (Monday to Sunday by each site's local dates), across all sites.
public struct TimesheetWeek: Hashable, Sendable {
    public var userId: UserID
    public var weekStart: LocalDate
    public var workedMinutes: Int
    /// Nil when no schedule applied on any day of the week.
    public var expectedMinutes: Int?
    /// Worked minutes that count toward overtime (without early arrivals, unless a site counts them).
    public var eligibleMinutes: Int
    public var overtimeMinutes: Int?
}

/// A timesheet: its rows and its weeks.
public struct Timesheet: Sendable {
    public var from: LocalDate
    public var through: LocalDate
    public var days: [TimesheetDay]
    public var weeks: [TimesheetWeek]
}
