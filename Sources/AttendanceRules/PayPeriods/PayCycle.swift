import Foundation

/// How often payroll runs.
public enum PayCycle: String, CaseIterable, Hashable, Sendable {
    /// Seven days from the anchor (a period start), and every seven days after.
    case weekly
    /// Fourteen days from the anchor.
    case biweekly
    /// The 1st to the 15th, and the 16th to the month's last day.
    case semimonthly
    /// The 1st to the month's last day.
    case monthly
}

/// A pay cycle in force from `effectiveFrom` (a period start) until the next setting's.
public struct PayCycleSetting: Hashable, Sendable {
    public var cycle: PayCycle
    /// For weekly and biweekly cycles, a date periods start on (any past or future one).
    public var anchor: LocalDate
    public var effectiveFrom: LocalDate

    public init(cycle: PayCycle, anchor: LocalDate, effectiveFrom: LocalDate) {
        self.cycle = cycle
        self.anchor = anchor
        self.effectiveFrom = effectiveFrom
    }
}

/// A pay period's dates, both included.
public struct PayPeriodDates: Hashable, Sendable, Comparable {
    public var start: LocalDate
    public var end: LocalDate

    public init(start: LocalDate, end: LocalDate) {
        self.start = start
        self.end = end
    }

    public func contains(_ date: LocalDate) -> Bool { start <= date && date <= end }

    public static func < (lhs: PayPeriodDates, rhs: PayPeriodDates) -> Bool { lhs.start < rhs.start }
}

/// Pay periods from a history of cycle settings (pure). A new setting starts a period on its
/// `effectiveFrom`; the period of the old cycle that was running then ends the day before.
public enum PayCalendar {
    /// The period of `setting`'s cycle that contains `date`, ignoring other settings.
    public static func period(containing date: LocalDate, _ setting: PayCycleSetting) -> PayPeriodDates {
        switch setting.cycle {
        case .weekly, .biweekly:
            let length = setting.cycle == .weekly ? 7 : 14
            let offset = date.dayNumber - setting.anchor.dayNumber
            let index = Int((Double(offset) / Double(length)).rounded(.down))
            let start = setting.anchor.adding(days: index * length)
            return PayPeriodDates(start: start, end: start.adding(days: length - 1))
        case .semimonthly:
            let last = LocalDate.daysIn(month: date.month, year: date.year)
            let firstHalf = date.day <= 15
            return PayPeriodDates(
                start: LocalDate(year: date.year, month: date.month, day: firstHalf ? 1 : 16)!,
                end: LocalDate(year: date.year, month: date.month, day: firstHalf ? 15 : last)!)
        case .monthly:
            return PayPeriodDates(
                start: LocalDate(year: date.year, month: date.month, day: 1)!,
                end: LocalDate(
                    year: date.year, month: date.month, day: LocalDate.daysIn(month: date.month, year: date.year))!)
        }
    }

    /// The periods that overlap `from...through`, in order. Before the first setting there are none.
    public static func periods(
        _ settings: [PayCycleSetting], from: LocalDate, through: LocalDate
    ) -> [PayPeriodDates] {
        let ordered = settings.sorted { $0.effectiveFrom < $1.effectiveFrom }
        var result: [PayPeriodDates] = []
        for (index, setting) in ordered.enumerated() {
            let until = index + 1 < ordered.count ? ordered[index + 1].effectiveFrom.adding(days: -1) : nil
            var date = max(setting.effectiveFrom, from)
            while date <= through, until.map({ date <= $0 }) ?? true {
                var period = period(containing: date, setting)
                period.start = max(period.start, setting.effectiveFrom)
                if let until { period.end = min(period.end, until) }
                result.append(period)
                date = period.end.adding(days: 1)
            }
        }
        return result
    }
}
