import AttendanceRules
import AttendanceServer
import Foundation

/// Times as a site's people read them: in the site's zone, with the zone shown.
enum LocalTime {
    private static let cache = FormatterCache()

    /// `2026-11-25 09:03 Europe/Berlin` (German: `25.11.2026 09:03 Europe/Berlin`).
    static func text(_ date: Date?, zone: String, in language: Language) -> String {
        guard let date else { return "" }
        return plain(date, zone: zone, in: language) + " " + zone
    }

    /// `2026-11-25 09:03` (German: `25.11.2026 09:03`), where the zone is shown once nearby.
    static func plain(_ date: Date, zone: String, in language: Language) -> String {
        let text = format(date, zone: zone, separator: " ")
        guard language != .english, let day = LocalDate(String(text.prefix(10))) else { return text }
        return language.date(day) + text.dropFirst(10)
    }

    /// The value of a `datetime-local` input: `2026-11-25T09:03`.
    static func inputValue(_ date: Date?, zone: String) -> String {
        guard let date else { return "" }
        return format(date, zone: zone, separator: "T")
    }

    /// The zone's offset at that instant, then the calendar by arithmetic (`LocalDate`): a page of
    /// 5,000 people formats 10,000 times, and DateFormatter costs tens of microseconds each.
    static func format(_ date: Date, zone: String, separator: Character) -> String {
        let offset = (TimeZone(identifier: zone) ?? .gmt).secondsFromGMT(for: date)
        let local = Int((date.timeIntervalSince1970).rounded(.down)) + offset
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = local - days * 86_400
        let hour = seconds / 3_600
        let minute = seconds % 3_600 / 60
        return LocalDate(dayNumber: days).description + String(separator)
            + (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// A `datetime-local` value read in the site's zone; nil when it is not one.
    static func parse(_ text: String, zone: String) -> Date? {
        cache.date(text, zone: zone, format: "yyyy-MM-dd'T'HH:mm")
            ?? cache.date(text, zone: zone, format: "yyyy-MM-dd'T'HH:mm:ss")
    }

    /// A day typed in a date filter (`YYYY-MM-DD`), or a refusal naming the field.
    static func day(_ field: String, _ text: String) throws -> LocalDate {
        guard let day = LocalDate(text) else {
            throw DomainError.field(field, text, expected: "a day YYYY-MM-DD")
        }
        return day
    }

    /// Whole minutes as `7 h 05 min`.
    static func duration(minutes: Int) -> String {
        minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h " + String(format: "%02d", minutes % 60) + " min"
    }
}

/// DateFormatter (for reading a typed time) is expensive to make: one per zone and format, guarded.
private final class FormatterCache: @unchecked Sendable {
    private let lock = NSLock()
    private var formatters: [String: DateFormatter] = [:]

    private func formatter(zone: String, format: String) -> DateFormatter {
        let key = zone + "|" + format
        if let found = formatters[key] { return found }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        formatters[key] = formatter
        return formatter
    }

    func date(_ text: String, zone: String, format: String) -> Date? {
        lock.withLock { formatter(zone: zone, format: format).date(from: text) }
    }
}
