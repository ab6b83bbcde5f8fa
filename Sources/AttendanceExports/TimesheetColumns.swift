import AttendanceModels
import AttendanceRules
import Foundation

/// One cell of an export: the CSV writes its text, the XLSX a number or an inline string.
public enum ExportCell: Hashable, Sendable {
    case text(String)
    case number(Int)
    case empty

    public var text: String {
        switch self {
        case .text(let text): text
        case .number(let number): String(number)
        case .empty: ""
        }
    }
}

/// The timesheet export's columns, version 1 (docs/TIMESHEETS.md, "Exports"): the CSV and the
/// XLSX both come from here, so they agree cell for cell. A column is only ever added at the end,
/// and a change of meaning is a new version.
public enum TimesheetColumns {
    public static let version = "timesheet-v1"

    public static let days = [
        "employeeId", "employeeName", "siteId", "date", "timeZone", "utcOffsets", "firstInLocal", "firstInUTC",
        "lastOutLocal", "lastOutUTC", "scheduledStartLocal", "scheduledEndLocal", "workedMinutes",
        "measuredBreakMinutes", "deductedBreakMinutes", "expectedMinutes", "lateMinutes", "earlyMinutes",
        "overtimeMinutes", "sessionCount", "status", "flags", "holiday", "leaveType", "proposedEndLocal",
    ]

    public static let weeks = [
        "employeeId", "employeeName", "weekStart", "workedMinutes", "expectedMinutes", "overtimeMinutes",
    ]

    /// A day's cells, in `days` order. Times are shown twice: by the site's clock with its offset,
    /// and in UTC. The leave note is not exported (it can be health data).
    public static func cells(_ day: TimesheetDay, employeeName: String, zones: ZoneCache) -> [ExportCell] {
        let zone = zones.zone(day.timeZone)
        func local(_ instant: Date?) -> ExportCell {
            guard let instant, let zone else { return .empty }
            return .text(LocalTimestamp.format(instant, offsetSeconds: zone.secondsFromGMT(for: instant)))
        }
        func utc(_ instant: Date?) -> ExportCell { instant.map { .text(RFC3339.format($0)) } ?? .empty }
        func number(_ value: Int?) -> ExportCell { value.map(ExportCell.number) ?? .empty }
        func text(_ value: String?) -> ExportCell { value.map { .text(inert($0)) } ?? .empty }
        return [
            .text(inert(day.userId.rawValue)), .text(inert(employeeName)), .text(inert(day.siteId.rawValue)),
            .text(day.date.description),
            .text(day.timeZone), .text(day.utcOffsetSeconds.map(utcOffsetText).joined(separator: " ")),
            local(day.firstIn), utc(day.firstIn), local(day.lastOut), utc(day.lastOut), local(day.scheduledStart),
            local(day.scheduledEnd), .number(day.workedMinutes), .number(day.measuredBreakMinutes),
            .number(day.deductedBreakMinutes), number(day.expectedMinutes), .number(day.lateMinutes),
            .number(day.earlyMinutes), number(day.overtimeMinutes), .number(day.sessionCount),
            .text(day.status.rawValue), .text(day.sortedFlags.map(\.rawValue).joined(separator: " ")),
            text(day.holiday), text(day.leaveType), local(day.proposedEnd),
        ]
    }

    public static func cells(_ week: TimesheetWeek, employeeName: String) -> [ExportCell] {
        [
            .text(inert(week.userId.rawValue)), .text(inert(employeeName)), .text(week.weekStart.description),
            .number(week.workedMinutes), week.expectedMinutes.map(ExportCell.number) ?? .empty,
            week.overtimeMinutes.map(ExportCell.number) ?? .empty,
        ]
    }
}

extension TimesheetColumns {
    /// Text people or devices chose (names, ids, holidays, leave types) that a spreadsheet would run as a formula
    /// (`=`, `+`, `-`, `@`, tab or CR first: OWASP's CSV injection) gets a leading apostrophe, in
    /// both formats, so they still agree.
    public static func inert(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }
}

/// `2026-03-29T03:00:00+02:00`: an instant as a site's wall clock shows it, with the offset.
/// Computed from the offset (not a DateFormatter per row: an export formats millions of them).
public enum LocalTimestamp {
    public static func format(_ instant: Date, offsetSeconds: Int) -> String {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + offsetSeconds
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let inDay = seconds - days * 86_400
        let date = LocalDate(dayNumber: days)
        return date.description
            + "T" + zeroPadded(inDay / 3600, 2) + ":" + zeroPadded(inDay % 3600 / 60, 2) + ":"
            + zeroPadded(inDay % 60, 2)
            + utcOffsetText(offsetSeconds)
    }
}

/// Time zones by identifier, made once each (an export asks for one per row).
public final class ZoneCache {
    private var zones: [String: TimeZone] = [:]

    public init() {}

    public func zone(_ identifier: String) -> TimeZone? {
        if let known = zones[identifier] { return known }
        let zone = TimeZone(identifier: identifier)
        zones[identifier] = zone
        return zone
    }
}
