import Foundation

/// Times as a site's people read them: in the site's zone, with the zone shown.
enum LocalTime {
    private static let cache = FormatterCache()

    /// `2026-11-25 09:03 Europe/Berlin`.
    static func text(_ date: Date?, zone: String) -> String {
        guard let date else { return "" }
        return cache.string(date, zone: zone, format: "yyyy-MM-dd HH:mm") + " " + zone
    }

    /// `2026-11-25 09:03`, where the zone is shown once nearby (a site's section).
    static func plain(_ date: Date, zone: String) -> String { cache.string(date, zone: zone, format: "yyyy-MM-dd HH:mm") }

    /// The value of a `datetime-local` input: `2026-11-25T09:03`.
    static func inputValue(_ date: Date?, zone: String) -> String {
        guard let date else { return "" }
        return cache.string(date, zone: zone, format: "yyyy-MM-dd'T'HH:mm")
    }

    /// A `datetime-local` value read in the site's zone; nil when it is not one.
    static func parse(_ text: String, zone: String) -> Date? {
        cache.date(text, zone: zone, format: "yyyy-MM-dd'T'HH:mm") ?? cache.date(text, zone: zone, format: "yyyy-MM-dd'T'HH:mm:ss")
    }

    /// Whole minutes as `7 h 05 min`.
    static func duration(minutes: Int) -> String {
        minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h " + String(format: "%02d", minutes % 60) + " min"
    }
}

/// DateFormatter is expensive to make; one per zone and format, guarded.
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

    func string(_ date: Date, zone: String, format: String) -> String {
        lock.withLock { formatter(zone: zone, format: format).string(from: date) }
    }

    func date(_ text: String, zone: String, format: String) -> Date? {
        lock.withLock { formatter(zone: zone, format: format).date(from: text) }
    }
}
