import AttendanceModels
import Foundation

/// What a locked pay period means for the rows (pure): inside it, the rows as they were locked;
/// outside it, the live rows. A live row that differs from its locked one is an exception.
public enum PayPeriodLock {
    /// `live` rows outside every locked period, and the `locked` rows inside them, by date then site.
    public static func merge(
        live: [TimesheetDay], locked: [TimesheetDay], periods: [PayPeriodRecord]
    ) -> [TimesheetDay] {
        guard !periods.isEmpty else { return live }
        let isLocked = { (date: LocalDate) in periods.contains { $0.dates.contains(date) } }
        return (live.filter { !isLocked($0.date) } + locked.filter { isLocked($0.date) })
            .sorted { ($0.date, $0.siteId.rawValue) < ($1.date, $1.siteId.rawValue) }
    }

    /// One difference between a locked row and the live one.
    public struct Exception: Hashable, Sendable {
        public var userId: UserID
        public var siteId: SiteID
        public var date: LocalDate
        /// Nil when the day had no row when it was locked (a session added or arrived later).
        public var locked: TimesheetDay?
        /// Nil when the day has no row now (its session was voided or moved).
        public var live: TimesheetDay?
        /// The figures that differ: `workedMinutes`, `status`…
        public var changed: [String]
    }

    /// The rows of a locked period that would differ if it were reopened: the late events and
    /// corrections that the lock kept out, by employee, date and site.
    public static func exceptions(locked: [TimesheetDay], live: [TimesheetDay]) -> [Exception] {
        struct Key: Hashable {
            var userId: UserID
            var siteId: SiteID
            var date: LocalDate
        }
        func key(_ day: TimesheetDay) -> Key { Key(userId: day.userId, siteId: day.siteId, date: day.date) }
        let before = Dictionary(locked.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(live.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        var found: [Exception] = []
        for key in Set(before.keys).union(after.keys) {
            let changed = differences(before[key], after[key])
            guard !changed.isEmpty else { continue }
            found.append(
                Exception(
                    userId: key.userId, siteId: key.siteId, date: key.date, locked: before[key], live: after[key],
                    changed: changed))
        }
        return found.sorted {
            ($0.userId.rawValue, $0.date, $0.siteId.rawValue) < ($1.userId.rawValue, $1.date, $1.siteId.rawValue)
        }
    }

    /// The figures payroll uses that differ (flags like `provisional` change by themselves and are
    /// not exceptions).
    package static func differences(_ before: TimesheetDay?, _ after: TimesheetDay?) -> [String] {
        guard let before, let after else { return before == nil && after == nil ? [] : ["row"] }
        let figures: [(String, (TimesheetDay) -> AnyHashable?)] = [
            ("workedMinutes", { $0.workedMinutes }), ("expectedMinutes", { $0.expectedMinutes }),
            ("overtimeMinutes", { $0.overtimeMinutes }), ("lateMinutes", { $0.lateMinutes }),
            ("earlyMinutes", { $0.earlyMinutes }), ("deductedBreakMinutes", { $0.deductedBreakMinutes }),
            ("sessionCount", { $0.sessionCount }), ("status", { $0.status }), ("firstIn", { $0.firstIn }),
            ("lastOut", { $0.lastOut }),
        ]
        return figures.filter { $0.1(before) != $0.1(after) }.map(\.0)
    }
}
