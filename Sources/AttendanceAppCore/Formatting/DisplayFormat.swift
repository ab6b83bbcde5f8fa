import AttendanceModels
import Foundation

/// How screens write times and durations: in the employee's time zone and locale (injected, so
/// tests and screenshots are stable), durations in hours and minutes.
public struct DisplayFormat: Sendable {
    public var timeZone: TimeZone
    public var locale: Locale

    public init(timeZone: TimeZone = .current, locale: Locale = .current) {
        self.timeZone = timeZone
        self.locale = locale
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
    public func dayAndTime(_ date: Date) -> String { day(date) + ", " + time(date) }

    /// "0 min", "42 min", "3 h 05 min"; never negative.
    public static func duration(seconds: Double) -> String {
        let minutes = Int((max(0, seconds) / 60).rounded(.down))
        guard minutes >= 60 else { return "\(minutes) min" }
        let rest = minutes % 60
        return "\(minutes / 60) h " + (rest < 10 ? "0\(rest)" : "\(rest)") + " min"
    }

    /// "just now", "4 min ago", "3 h ago", "2 days ago"; a time in the future (a wrong clock) is "just now".
    public static func ago(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        if seconds < 60 { return "just now" }
        if seconds < 3600 { return "\(Int(seconds / 60)) min ago" }
        if seconds < 86_400 { return "\(Int(seconds / 3600)) h ago" }
        let days = Int(seconds / 86_400)
        return days == 1 ? "1 day ago" : "\(days) days ago"
    }

    /// A site's display name: its configured name, else "Site <major>".
    public static func siteName(_ site: SiteBeacon, in names: [SiteBeacon: String]) -> String {
        names[site] ?? "Site \(site.major)"
    }

    private func formatter(template: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.setLocalizedDateFormatFromTemplate(template)
        return formatter
    }
}
