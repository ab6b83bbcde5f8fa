import Foundation

/// One day of the employee's timesheet as the server counts it (docs/TIMESHEETS.md): a local day
/// of a site's time zone.
public struct ServerTimesheetDay: Hashable, Sendable, Identifiable {
    /// `YYYY-MM-DD`, the site's local date.
    public var date: String
    public var siteID: String
    public var timeZone: String
    public var firstIn: Date?
    public var lastOut: Date?
    public var workedMinutes: Int
    public var measuredBreakMinutes: Int
    public var deductedBreakMinutes: Int
    public var expectedMinutes: Int?
    public var lateMinutes: Int
    public var earlyMinutes: Int
    public var overtimeMinutes: Int?
    /// `present`, `late`, `halfDay`, `absent`, `off`, `leave`.
    public var status: String
    /// `open`, `endUnconfirmed`, `manual`, `corrected`, `pendingRequest`, `provisional`, `locked`.
    public var flags: [String]
    public var holiday: String?
    public var leaveType: String?

    public var id: String { date + "/" + siteID }

    public init(
        date: String, siteID: String, timeZone: String, firstIn: Date? = nil, lastOut: Date? = nil,
        workedMinutes: Int, measuredBreakMinutes: Int = 0, deductedBreakMinutes: Int = 0, expectedMinutes: Int? = nil,
        lateMinutes: Int = 0, earlyMinutes: Int = 0, overtimeMinutes: Int? = nil, status: String, flags: [String] = [],
        holiday: String? = nil, leaveType: String? = nil
    ) {
        self.date = date
        self.siteID = siteID
        self.timeZone = timeZone
        self.firstIn = firstIn
        self.lastOut = lastOut
        self.workedMinutes = workedMinutes
        self.measuredBreakMinutes = measuredBreakMinutes
        self.deductedBreakMinutes = deductedBreakMinutes
        self.expectedMinutes = expectedMinutes
        self.lateMinutes = lateMinutes
        self.earlyMinutes = earlyMinutes
        self.overtimeMinutes = overtimeMinutes
        self.status = status
        self.flags = flags
        self.holiday = holiday
        self.leaveType = leaveType
    }
}

/// The employee's ISO week (Monday first) as the server sums it.
public struct ServerTimesheetWeek: Hashable, Sendable {
    /// `YYYY-MM-DD`, a Monday.
    public var weekStart: String
    public var workedMinutes: Int
    public var expectedMinutes: Int?
    public var overtimeMinutes: Int?

    public init(weekStart: String, workedMinutes: Int, expectedMinutes: Int? = nil, overtimeMinutes: Int? = nil) {
        self.weekStart = weekStart
        self.workedMinutes = workedMinutes
        self.expectedMinutes = expectedMinutes
        self.overtimeMinutes = overtimeMinutes
    }
}
