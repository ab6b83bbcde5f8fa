import AttendanceModels
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
        weekStart: String, days: [ServerTimesheetDay], weeks: [ServerTimesheetWeek], siteNames: [String: String],
        format: DisplayFormat
    ) {
        let monday = Self.date(weekStart) ?? Date(timeIntervalSince1970: 0)
        from = Self.text(monday)
        to = Self.text(monday.addingTimeInterval(6 * 86_400))
        title = format.text("Week of %@", .verbatim(Self.format(monday, "dMMMMy", format.locale)))
        let sites = Set(days.map(\.siteID))
        var lines: [Line] = []
        for offset in 0..<7 {
            let date = monday.addingTimeInterval(Double(offset) * 86_400)
            let rows = days.filter { $0.date == Self.text(date) }
            let label = Self.format(date, "EEEdMMM", format.locale)
            guard !rows.isEmpty else {
                lines.append(Line(id: Self.text(date), title: label, worked: "–", notes: [format.text("no record")]))
                continue
            }
            for row in rows {
                let title =
                    sites.count > 1
                    ? format.text("%@ · %@", .verbatim(label), .verbatim(siteNames[row.siteID] ?? row.siteID)) : label
                lines.append(
                    Line(
                        id: row.id, title: title,
                        worked: row.workedMinutes > 0 ? format.duration(seconds: Double(row.workedMinutes * 60)) : "–",
                        notes: Self.notes(row).map(format.string)))
            }
        }
        self.lines = lines
        let week = weeks.first { $0.weekStart == weekStart }
        let worked = DisplayFormat.duration(seconds: Double((week?.workedMinutes ?? 0) * 60))
        total =
            week?.expectedMinutes.map {
                format.text("%@ of %@ expected", .text(worked), .text(DisplayFormat.duration(seconds: Double($0 * 60))))
            }
            ?? format.string(worked)
        overtime = week?.overtimeMinutes.flatMap {
            $0 > 0 ? format.text("Overtime %@", .text(DisplayFormat.duration(seconds: Double($0 * 60)))) : nil
        }
        footnote =
            days.contains { $0.flags.contains("provisional") }
            ? format.text("Days marked \"not final yet\" can still change: this phone may hold events it has not sent.")
            : format.text("Your employer's count, by each site's clock.")
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

    /// The server's leave types in the employee's words; a type of the employer's own as it is.
    static func leaveType(_ type: String) -> LocalizedText {
        switch type {
        case "vacation": LocalizedText("vacation")
        case "sick": LocalizedText("sick")
        case "unpaid": LocalizedText("unpaid")
        case "other": LocalizedText("other")
        default: .verbatim(type)
        }
    }

    static func notes(_ row: ServerTimesheetDay) -> [LocalizedText] {
        var notes: [LocalizedText] = []
        switch row.status {
        case "late": notes.append(LocalizedText("late by %lld min", .count(row.lateMinutes)))
        case "halfDay": notes.append(LocalizedText("half day"))
        case "absent": notes.append(LocalizedText("absent"))
        case "off":
            notes.append(row.holiday.map { LocalizedText("day off: %@", .verbatim($0)) } ?? LocalizedText("day off"))
        case "leave":
            notes.append(
                row.leaveType.map { LocalizedText("leave: %@", .text(Self.leaveType($0))) } ?? LocalizedText("leave"))
        default: break
        }
        if row.earlyMinutes > 0 { notes.append(LocalizedText("left %lld min early", .count(row.earlyMinutes))) }
        if row.deductedBreakMinutes > 0 {
            notes.append(LocalizedText("%lld min break deducted", .count(row.deductedBreakMinutes)))
        }
        let flags: [(String, LocalizedText)] = [
            ("open", LocalizedText("still checked in")), ("endUnconfirmed", LocalizedText("end not confirmed")),
            ("manual", LocalizedText("by hand")), ("corrected", LocalizedText("corrected by your employer")),
            ("pendingRequest", LocalizedText("request pending")), ("provisional", LocalizedText("not final yet")),
            ("locked", LocalizedText("pay period closed")),
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

    /// A local date (a UTC midnight) as `locale` writes the fields of `template`.
    static func format(_ date: Date, _ template: String, _ locale: Locale) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate(template)
        return formatter.string(from: date)
    }
}
