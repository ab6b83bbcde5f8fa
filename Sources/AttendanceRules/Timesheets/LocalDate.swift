import Foundation

/// A calendar date with no time and no zone (`2026-03-29`): a day on a site's wall calendar.
/// Instants become local dates only through a site's time zone (docs/TIMESHEETS.md, "The day rule").
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// `nil` unless `year-month-day` is a real proleptic Gregorian date of the years 1 to 9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` (RFC 3339 `full-date`); `nil` for anything else, including `2026-02-30`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var description: String {
        zeroPadded(year, 4) + "-" + zeroPadded(month, 2) + "-" + zeroPadded(day, 2)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Days since 1970-01-01 (the civil-from-days algorithm of H. Hinnant, public domain).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        self.year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// ISO weekday: Monday 1 … Sunday 7.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday (4).
        let offset = ((dayNumber % 7) + 7) % 7
        return Weekday(rawValue: (offset + 3) % 7 + 1)!
    }

    /// The Monday that starts this date's ISO week.
    public var weekStart: LocalDate { adding(days: 1 - weekday.rawValue) }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The dates from `self` through `last`, both included.
    public func through(_ last: LocalDate) -> [LocalDate] {
        guard self <= last else { return [] }
        return (dayNumber...last.dayNumber).map(LocalDate.init(dayNumber:))
    }
}

/// ISO weekdays, Monday first.
public enum Weekday: Int, CaseIterable, Hashable, Sendable, Codable {
    case monday = 1
    case tuesday, wednesday, thursday, friday, saturday, sunday

    public var name: String { String(describing: self) }

    public init?(name: String) {
        guard let day = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = day
    }
}

/// `n` in decimal, zero-padded to `width` digits (`n` ≥ 0). Not `String(format:)`: an export
/// formats millions of dates and times, and that was 40 % of its time (bench/timesheets/run).
package func zeroPadded(_ n: Int, _ width: Int) -> String {
    let digits = String(n)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
