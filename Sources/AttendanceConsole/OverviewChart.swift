import AttendanceRules
import Foundation

/// A site's last days as server-rendered SVG (no script, colours as attributes: the console's
/// policy allows no inline style): a bar a day, stacked on time, late, absent and on leave, and a
/// row of overtime bars under it. Built from numbers and dates only; the same numbers are in the
/// table beside it.
enum OverviewChart {
    static let width = 720.0
    static let barsHeight = 160.0
    static let overtimeHeight = 50.0
    static let left = 36.0
    static let colours = (onTime: "#2e7d32", late: "#f9a825", absent: "#c62828", leave: "#90a4ae", overtime: "#1565c0")

    /// The chart with its texts in `words`' language.
    static func svg(_ overview: SiteOverview, id: String, words: Words) -> String {
        let language = words.language
        let days = overview.days
        guard !days.isEmpty else { return "" }
        let slot = (width - left - 4) / Double(days.count)
        let bar = max(slot - 3, 2)
        let peak = max(overview.peak, 1)
        let overtimePeak = max(days.map(\.overtimeMinutes).max() ?? 0, 60)
        let top = 10.0
        let base = top + barsHeight
        var parts: [String] = []
        let total = days.reduce(0) { $0 + $1.present }
        parts.append(
            "<svg class=\"overview-chart\" viewBox=\"0 0 \(Int(width)) \(Int(base + overtimeHeight + 34))\" "
                + "role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\" xmlns=\"http://www.w3.org/2000/svg\">")
        parts.append(
            "<title id=\"\(id)-title\">"
                + words.t(
                    "Attendance per day, %@ to %@",
                    language.date(days[0].date), language.date(days[days.count - 1].date))
                + "</title>")
        parts.append(
            "<desc id=\"\(id)-desc\">"
                + words.t(
                    "%@ days worked in all; bars: on time, late, absent, on leave; below: overtime hours.",
                    words.number(total))
                + " " + words.t("The table beside the chart has every number.") + "</desc>")
        // Scale: the peak and zero.
        parts.append(line(left, top, width - 4, top, "#ddd"))
        parts.append(line(left, base, width - 4, base, "#999"))
        parts.append(text(left - 4, top + 4, words.number(peak), anchor: "end"))
        parts.append(text(left - 4, base, "0", anchor: "end"))
        for (index, day) in days.enumerated() {
            let x = left + 2 + Double(index) * slot
            var y = base
            let date = language.date(day.date)
            let stack: [(Int, String, (String) -> String)] = [
                (day.present - day.late, colours.onTime, { words.t("%@: %@ on time", date, $0) }),
                (day.late, colours.late, { words.t("%@: %@ late", date, $0) }),
                (day.absent, colours.absent, { words.t("%@: %@ absent", date, $0) }),
                (day.leave, colours.leave, { words.t("%@: %@ on leave", date, $0) }),
            ]
            for (count, colour, label) in stack where count > 0 {
                let height = barsHeight * Double(count) / Double(peak)
                y -= height
                parts.append(
                    "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(bar))\" height=\"\(fmt(height))\" "
                        + "fill=\"\(colour)\"><title>\(label(words.number(count)))</title></rect>")
            }
            if day.openExceptions > 0 {
                let title = words.t("%@: %@ to look at", date, words.number(day.openExceptions))
                parts.append(
                    "<circle cx=\"\(fmt(x + bar / 2))\" cy=\"\(fmt(y - 5))\" r=\"3\" fill=\"#6a1b9a\">"
                        + "<title>\(title)</title></circle>")
            }
            let overtime = overtimeHeight * Double(day.overtimeMinutes) / Double(overtimePeak)
            if overtime > 0 {
                parts.append(
                    "<rect x=\"\(fmt(x))\" y=\"\(fmt(base + 6))\" width=\"\(fmt(bar))\" height=\"\(fmt(overtime))\" "
                        + "fill=\"\(colours.overtime)\"><title>"
                        + words.t("%@: %@ overtime", date, hours(day.overtimeMinutes, in: language)) + "</title></rect>"
                )
            }
            if index % 7 == 0 || (index == days.count - 1 && index % 7 >= 3) {
                // Month and day: `11-25` in English, `25.11.` in German.
                let label = language == .english ? String(day.date.description.dropFirst(5)) : String(date.prefix(6))
                parts.append(text(x + bar / 2, base + overtimeHeight + 24, label, anchor: "middle"))
            }
        }
        // An abbreviation of "overtime", under the scale.
        parts.append(text(left - 4, base + 16, words.t("OT"), anchor: "end"))
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    static func hours(_ minutes: Int, in language: Language = .english) -> String {
        language.number(Double(minutes) / 60, fractionDigits: 1) + " h"
    }

    private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ colour: String) -> String {
        "<line x1=\"\(fmt(x1))\" y1=\"\(fmt(y1))\" x2=\"\(fmt(x2))\" y2=\"\(fmt(y2))\" stroke=\"\(colour)\"/>"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
        "<text x=\"\(fmt(x))\" y=\"\(fmt(y))\" font-size=\"11\" text-anchor=\"\(anchor)\" fill=\"#444\">"
            + "\(content)</text>"
    }
}
