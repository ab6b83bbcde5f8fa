import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceConsole

/// The Overview counts a site's days from the timesheet's own rows: every day of the span, other
/// sites' rows left out; its chart is drawn from those numbers only.
@Suite struct SiteOverviewTests {
    func row(
        _ user: UserID, _ date: String, _ status: DayStatus, site: SiteID = "hq", overtime: Int? = nil,
        flags: Set<DayFlag> = []
    ) -> TimesheetDay {
        TimesheetDay(
            userId: user, siteId: site, date: LocalDate(date)!, timeZone: "Europe/Berlin", utcOffsetSeconds: [3_600],
            workedMinutes: 0, measuredBreakMinutes: 0, deductedBreakMinutes: 0, eligibleMinutes: 0, lateMinutes: 0,
            earlyMinutes: 0, overtimeMinutes: overtime, sessionCount: 0, status: status, flags: flags)
    }

    @Test func eachDayCountsItsPeopleOnce() throws {
        let overview = SiteOverview(
            siteId: "hq", from: LocalDate("2026-11-02")!, through: LocalDate("2026-11-04")!,
            rows: [
                row("ada", "2026-11-02", .present, overtime: 30), row("bo", "2026-11-02", .late),
                row("cy", "2026-11-02", .absent), row("di", "2026-11-02", .leave),
                row("ada", "2026-11-03", .halfDay, flags: [.endUnconfirmed]), row("bo", "2026-11-03", .off),
                row("ada", "2026-11-02", .present, site: "annex", overtime: 600),
                row("ada", "2026-10-31", .present),
            ])
        #expect(overview.days.map(\.date.description) == ["2026-11-02", "2026-11-03", "2026-11-04"])
        let monday = overview.days[0]
        #expect([monday.present, monday.late, monday.absent, monday.leave] as [Int] == [2, 1, 1, 1])
        #expect(monday.overtimeMinutes == 30)
        #expect(overview.days[1].present == 1 && overview.days[1].openExceptions == 1)
        #expect(overview.days[2] == SiteOverview.Day(date: LocalDate("2026-11-04")!))
        #expect(overview.peak == 4)

        let svg = OverviewChart.svg(
            overview, id: "hq", words: Words(catalogue: try Catalogue.bundled(), language: .english))
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
        #expect(svg.contains("<title>2026-11-02: 1 late</title>"))
        #expect(svg.contains("<title>2026-11-02: 0.5 h overtime</title>"))
        #expect(svg.contains("<title>2026-11-03: 1 to look at</title>"))
        #expect(!svg.contains("style="), "the console's policy allows no inline style")
    }
}
