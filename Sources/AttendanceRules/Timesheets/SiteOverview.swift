import AttendanceModels
import Foundation

/// A site's days at a glance (the console's Overview): for each local day, how many people were
/// present (on time or late), late, absent or on leave, the overtime worked, and what still needs
/// a person (ends unconfirmed, pending requests). Pure: built from the timesheet's own rows, so
/// the chart and the timesheet never disagree.
public struct SiteOverview: Hashable, Sendable {
    public struct Day: Hashable, Sendable {
        public var date: LocalDate
        /// Worked the day: on time, late or a half day (`late` counts the late ones among them).
        public var present = 0
        public var late = 0
        public var absent = 0
        public var leave = 0
        public var overtimeMinutes = 0
        /// Days whose end is unconfirmed or with a pending request.
        public var openExceptions = 0

        public init(date: LocalDate) { self.date = date }
    }

    public var siteId: SiteID
    public var days: [Day]

    /// Every day from `from` through `through`, counted from `rows` (other sites' rows ignored).
    public init(siteId: SiteID, from: LocalDate, through: LocalDate, rows: [TimesheetDay]) {
        self.siteId = siteId
        var days: [LocalDate: Day] = [:]
        var date = from
        while date <= through {
            days[date] = Day(date: date)
            date = date.adding(days: 1)
        }
        for row in rows where row.siteId == siteId {
            guard var day = days[row.date] else { continue }
            switch row.status {
            case .present, .halfDay: day.present += 1
            case .late:
                day.present += 1
                day.late += 1
            case .absent: day.absent += 1
            case .leave: day.leave += 1
            case .off: break
            }
            day.overtimeMinutes += row.overtimeMinutes ?? 0
            if row.flags.contains(.endUnconfirmed) || row.flags.contains(.pendingRequest) {
                day.openExceptions += 1
            }
            days[row.date] = day
        }
        self.days = days.values.sorted { $0.date < $1.date }
    }

    /// The largest number of people any day shows (present, absent or on leave): the chart's scale.
    public var peak: Int { days.map { $0.present + $0.absent + $0.leave }.max() ?? 0 }
}
