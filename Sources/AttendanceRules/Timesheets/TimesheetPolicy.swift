import Foundation

/// Which local day a session's hours count on (docs/TIMESHEETS.md, "The day rule").
public enum DayBoundary: String, CaseIterable, Hashable, Sendable {
    /// Split at the site's local midnight: 22:00–06:00 is 2 h on the first day and 6 h on the next.
    case calendar
    /// The whole session counts on the local day it started: 22:00–06:00 is 8 h on the first day.
    case shiftStart
}

/// A minimum break: a day with more than `workedOverMinutes` worked owes `breakMinutes` of break
/// (e.g. Germany's ArbZG §4: 30 min after 6 h, 45 min after 9 h).
public struct BreakRule: Hashable, Sendable, Codable {
    public var workedOverMinutes: Int
    public var breakMinutes: Int

    public init(workedOverMinutes: Int, breakMinutes: Int) {
        self.workedOverMinutes = workedOverMinutes
        self.breakMinutes = breakMinutes
    }
}

/// A site's timesheet rules. Every field has a default, so a site nobody configured still gets
/// timesheets: calendar days, no grace, no thresholds, no break rule.
public struct TimesheetPolicy: Hashable, Sendable {
    public var dayBoundary: DayBoundary = .calendar
    /// An arrival up to this many minutes after the scheduled start is not late.
    public var lateGraceMinutes = 0
    /// A departure up to this many minutes before the scheduled end is not early.
    public var earlyGraceMinutes = 0
    /// A scheduled day with less attended time than this is `halfDay` (nil: never).
    public var halfDayBelowMinutes: Int?
    /// A scheduled day with less attended time than this is `absent` (nil: only with no session).
    public var absentBelowMinutes: Int?
    /// Minimum breaks, deducted only as far as the measured breaks fall short.
    public var breakRules: [BreakRule] = []
    /// A gap between sessions shorter than this is shown as a break but does not count toward a
    /// break rule (ArbZG §4 counts rest breaks of at least 15 minutes).
    public var breakMinimumMinutes = 15
    /// Whether time worked before the scheduled start counts toward overtime (frappe/hrms#4194:
    /// an early arrival is not overtime unless the employer says so).
    public var overtimeCountsEarlyArrival = false

    public init() {}

    /// The break to deduct for `grossSeconds` worked with `countedSeconds` of measured breaks:
    /// for each rule passed, what the measured breaks fall short of it, never so much that the day
    /// drops below that rule's threshold; the most any rule asks (so working longer never
    /// credits more time than it took).
    package func deductedBreakSeconds(gross grossSeconds: Double, counted countedSeconds: Double) -> Double {
        breakRules.filter { grossSeconds > Double($0.workedOverMinutes * 60) }
            .map { rule in
                max(
                    0,
                    min(
                        Double(rule.breakMinutes * 60) - countedSeconds,
                        grossSeconds - Double(rule.workedOverMinutes * 60)))
            }
            .max() ?? 0
    }
}

/// The timesheet's fixed settings (not per site), each with why.
public enum TimesheetConfiguration {
    /// An open session whose last evidence is older than this is "end unconfirmed": four missed
    /// heartbeats (the app sends one every 900 s while inside, docs/ENGINE.md).
    public static let endUnconfirmedAfterSeconds: Double = 3_600
    /// A day stays provisional until a device of the employee is heard from after it ends, for at
    /// most this long: the app keeps events for 72 h offline (docs/ENGINE.md).
    public static let provisionalForSeconds: Double = 72 * 3_600
    /// A gap between sessions longer than this is time off between two stints (a night shift's
    /// tail and the evening's start), not a break.
    public static let longestBreakSeconds: Double = 4 * 3_600
    /// The longest range one timesheet request may cover (a quarter and a bit).
    public static let maximumDays = 100
}
