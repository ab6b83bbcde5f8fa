import AttendanceSync
import Foundation

/// The employee's week as the server counts it (`GET /v1/me/timesheet`): Monday to Sunday, a line
/// per day and site, the week's total against what was expected, and why a day may still change.
public struct WeekTimesheetModel: Hashable, Sendable {
    public struct Line: Hashable, Sendable, Identifiable {
        public var id: String
        /// "Mon 1 Jun", with the site when the week has more than one.
        public var title: String
        /// "7 h 40 min", or "–" with no time worked.
        public var worked: String
        /// "late by 20 min", "day off: Founders' Day", "not final yet: …"
        public var notes: [String]
    }

    /// `YYYY-MM-DD` of the Monday and the Sunday.
    public var from: String
    public var to: String
    public var title: String
    public var lines: [Line]
    /// "38 h 15 min of 40 h 00 min expected", or the worked time alone without a schedule.
    public var total: String
    public var overtime: String?
    public var footnote: String

    public init(
        weekStart: String, days: [ServerTimesheetDay], weeks: [ServerTimesheetWeek], siteNames: [String: String]
    ) {
        let monday = Self.date(weekStart) ?? Date(timeIntervalSince1970: 0)
        from = Self.text(monday)
        to = Self.text(monday.addingTimeInterval(6 * 86_400))
        title = "Week of " + Self.format(monday, "d MMMM yyyy")
        let sites = Set(days.map(\.siteID))
        var lines: [Line] = []
        for offset in 0..<7 {
            let date = monday.addingTimeInterval(Double(offset) * 86_400)
            let rows = days.filter { $0.date == Self.text(date) }
            let label = Self.format(date, "EEE d MMM")
            guard !rows.isEmpty else {
                lines.append(Line(id: Self.text(date), title: label, worked: "–", notes: ["no record"]))
                continue
            }
            for row in rows {
                let site = sites.count > 1 ? " · " + (siteNames[row.siteID] ?? row.siteID) : ""
                lines.append(
                    Line(
                        id: row.id, title: label + site,
                        worked: row.workedMinutes > 0
                            ? DisplayFormat.duration(seconds: Double(row.workedMinutes * 60)) : "–",
                        notes: Self.notes(row)))
            }
        }
        self.lines = lines
        let week = weeks.first { $0.weekStart == weekStart }
        let worked = DisplayFormat.duration(seconds: Double((week?.workedMinutes ?? 0) * 60))
        total =
            week?.expectedMinutes.map {
                worked + " of " + DisplayFormat.duration(seconds: Double($0 * 60)) + " expected"
            }
            ?? worked
        overtime = week?.overtimeMinutes.flatMap {
            $0 > 0 ? "Overtime " + DisplayFormat.duration(seconds: Double($0 * 60)) : nil
        }
        footnote =
            days.contains { $0.flags.contains("provisional") }
            ? "Days marked \"not final yet\" can still change: this phone may hold events it has not sent."
            : "Your employer's count, by each site's clock."
    }

    /// The Monday (`YYYY-MM-DD`) of the week that contains `date` in `timeZone`.
    public static func weekStart(containing date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        let monday = calendar.date(from: parts) ?? date
        let local = calendar.dateComponents([.year, .month, .day], from: monday)
        return String(format: "%04d-%02d-%02d", local.year ?? 1970, local.month ?? 1, local.day ?? 1)
    }

    /// The Monday a week before or after `weekStart`.
    public static func weekStart(_ weekStart: String, movedBy weeks: Int) -> String {
        guard let monday = date(weekStart) else { return weekStart }
        return text(monday.addingTimeInterval(Double(weeks * 7) * 86_400))
    }

    /// The Sunday (`YYYY-MM-DD`) of the week that starts on `weekStart`.
    public static func weekEnd(_ weekStart: String) -> String {
        guard let monday = date(weekStart) else { return weekStart }
        return text(monday.addingTimeInterval(6 * 86_400))
    }

    static func notes(_ row: ServerTimesheetDay) -> [String] {
        var notes: [String] = []
        switch row.status {
        case "late": notes.append("late by \(row.lateMinutes) min")
        case "halfDay": notes.append("half day")
        case "absent": notes.append("absent")
        case "off": notes.append(row.holiday.map { "day off: \($0)" } ?? "day off")
        case "leave": notes.append("leave" + (row.leaveType.map { ": \($0)" } ?? ""))
        default: break
        }
        if row.earlyMinutes > 0 { notes.append("left \(row.earlyMinutes) min early") }
        if row.deductedBreakMinutes > 0 { notes.append("\(row.deductedBreakMinutes) min break deducted") }
        let flags: [(String, String)] = [
            ("open", "still checked in"), ("endUnconfirmed", "end not confirmed"), ("manual", "by hand"),
            ("corrected", "corrected by your employer"), ("pendingRequest", "request pending"),
            ("provisional", "not final yet"), ("locked", "pay period closed"),
        ]
        notes += flags.filter { row.flags.contains($0.0) }.map(\.1)
        return notes
    }

    // Local dates as UTC midnights: date arithmetic without a zone's DST.
    static func date(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    static func text(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
