import AttendanceModels
import Foundation

/// How screens write texts, times and durations: in the employee's language, time zone and locale
/// (injected, so tests and screenshots are stable), durations in hours and minutes.
public struct DisplayFormat: Sendable {
    public typealias Catalogue = @Sendable (String) -> String?

    public var timeZone: TimeZone
    public var locale: Locale
    /// A text's value in the employee's language by its key (the English text); nil keeps the key.
    public var catalogue: Catalogue

    public init(
        timeZone: TimeZone = .current, locale: Locale = .current,
        catalogue: @escaping Catalogue = DisplayFormat.appBundle
    ) {
        self.timeZone = timeZone
        self.locale = locale
        self.catalogue = catalogue
    }

    /// The app's String Catalog (`Localizable.xcstrings`, compiled into the app bundle) in the
    /// phone's language, as iOS chooses it; the keys themselves where the bundle has none (Linux).
    public static let appBundle: Catalogue = { Bundle.main.localizedString(forKey: $0, value: nil, table: nil) }

    /// The keys themselves: English.
    public static let english: Catalogue = { _ in nil }

    /// `text` in the employee's language.
    public func string(_ text: LocalizedText) -> String { text.resolved(by: catalogue) }

    /// The catalogue's text for `key` with `values` in its specifiers.
    public func text(_ key: String, _ values: LocalizedText.Value...) -> String {
        string(LocalizedText(key, values: values))
    }

    /// A calendar in the display time zone: days in History are the employee's local days.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = locale
        return calendar
    }

    /// "08:57" or "8:57 AM", as the locale writes a time of day.
    public func time(_ date: Date) -> String { formatter(template: "jmm").string(from: date) }

    /// "Mon 23 Nov" or "Mon, Nov 23".
    public func day(_ date: Date) -> String { formatter(template: "EEEdMMM").string(from: date) }

    /// "Mon 23 Nov, 08:57" or "Mon, Nov 23, 8:57 AM".
    public func dayAndTime(_ date: Date) -> String { text("%@, %@", .verbatim(day(date)), .verbatim(time(date))) }

    /// "0 min", "42 min", "3 h 05 min"; never negative.
    public func duration(seconds: Double) -> String { string(Self.duration(seconds: seconds)) }

    /// "0 min", "42 min", "3 h 05 min" as a text, for a sentence that holds one.
    public static func duration(seconds: Double) -> LocalizedText {
        let minutes = Int((max(0, seconds) / 60).rounded(.down))
        guard minutes >= 60 else { return LocalizedText("%lld min", .count(minutes)) }
        let rest = minutes % 60
        return LocalizedText("%lld h %@ min", .count(minutes / 60), .verbatim(rest < 10 ? "0\(rest)" : "\(rest)"))
    }

    /// "just now", "4 min ago", "3 h ago", "2 days ago"; a time in the future (a wrong clock) is "just now".
    public static func ago(_ date: Date, now: Date) -> LocalizedText {
        let seconds = now.timeIntervalSince(date)
        if seconds < 60 { return LocalizedText("just now") }
        if seconds < 3600 { return LocalizedText("%lld min ago", .count(Int(seconds / 60))) }
        if seconds < 86_400 { return LocalizedText("%lld h ago", .count(Int(seconds / 3600))) }
        let days = Int(seconds / 86_400)
        return days == 1 ? LocalizedText("1 day ago") : LocalizedText("%lld days ago", .count(days))
    }

    /// A site's display name: its configured name, else "Site <major>".
    public func siteName(_ site: SiteBeacon, in names: [SiteBeacon: String]) -> String {
        names[site] ?? text("Site %lld", .count(Int(site.major)))
    }

    private func formatter(template: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.setLocalizedDateFormatFromTemplate(template)
        return formatter
    }
}
