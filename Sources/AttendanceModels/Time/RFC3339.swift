import Foundation

/// RFC 3339 timestamps without a locale-dependent formatter: deterministic, allocation-light,
/// and with errors that say what was wrong.
public enum RFC3339 {
    public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        public let value: String
        public let reason: String
        public var description: String { "'\(value)' is not an RFC 3339 timestamp (\(reason)); expected e.g. 2026-11-22T09:00:00Z or 2026-11-22T10:00:00.250+01:00" }
    }

    /// Formats in UTC with millisecond precision when the time has a fraction: `2026-11-22T09:00:00Z`.
    public static func format(_ date: Date) -> String {
        let totalMillis = (date.timeIntervalSince1970 * 1000).rounded()
        let millisOfSecond = Int(totalMillis.truncatingRemainder(dividingBy: 1000) + 1000) % 1000
        let seconds = Int((totalMillis - Double(millisOfSecond)) / 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if millisOfSecond != 0 { text += "." + pad(millisOfSecond, 3) }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `t`, `z` and a space separator are accepted.
    public static func parse(_ text: String) throws(ParseError) -> Date {
        let bytes = Array(text.utf8)
        func fail(_ reason: String) -> ParseError { ParseError(value: text, reason: reason) }
        func number(_ start: Int, _ count: Int, _ name: String) throws(ParseError) -> Int {
            guard start + count <= bytes.count else { throw fail("it ends before the \(name)") }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48, byte <= 57 else { throw fail("the \(name) must be \(count) digits") }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func expect(_ index: Int, _ allowed: String, _ name: String) throws(ParseError) {
            guard index < bytes.count, allowed.utf8.contains(bytes[index]) else { throw fail("expected \(name) at position \(index + 1)") }
        }
        let year = try number(0, 4, "year")
        try expect(4, "-", "'-'")
        let month = try number(5, 2, "month")
        try expect(7, "-", "'-'")
        let day = try number(8, 2, "day")
        try expect(10, "Tt ", "'T'")
        let hour = try number(11, 2, "hour")
        try expect(13, ":", "':'")
        let minute = try number(14, 2, "minute")
        try expect(16, ":", "':'")
        let second = try number(17, 2, "second")
        guard (1...12).contains(month) else { throw fail("month \(month) is out of range 01-12") }
        guard day >= 1, day <= daysIn(month: month, year: year) else { throw fail("day \(day) does not exist in \(pad(year, 4))-\(pad(month, 2))") }
        guard hour < 24, minute < 60, second < 61 else { throw fail("time of day out of range") }

        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { throw fail("a '.' must be followed by digits") }
        }
        guard index < bytes.count else { throw fail("the offset is missing (use Z or ±HH:MM)") }
        var offsetSeconds = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            let offsetHours = try number(index + 1, 2, "offset hours")
            try expect(index + 3, ":", "':' in the offset")
            let offsetMinutes = try number(index + 4, 2, "offset minutes")
            guard offsetHours < 24, offsetMinutes < 60 else { throw fail("offset out of range") }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            index += 6
        default:
            throw fail("the offset must be Z or ±HH:MM")
        }
        guard index == bytes.count else { throw fail("unexpected text after the offset") }
        let days = days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
