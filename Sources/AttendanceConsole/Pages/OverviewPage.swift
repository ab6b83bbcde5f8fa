import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// Each site's last 30 days: present, late, absent and on leave per day, overtime, and the days
/// that still need a person, as a chart that reads without JavaScript and the table of its numbers.
extension Console {
    static let overviewDays = 30

    func registerOverview(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "overview",
            use: signedIn("overview", needs: .readTimesheets) { _, _, viewer, _ in
                page("overview", title: viewer.t("Overview"), viewer: viewer, try await overviewData(viewer))
            })
    }

    private func overviewData(_ viewer: Viewer) async throws -> [String: Any] {
        let sites = try await services.repository.sites().filter { $0.isActive && viewer.scope.permits($0.id) }
        let now = environment.now()
        var sections: [[String: Any]] = []
        for site in sites {
            let zone = TimeZone(identifier: site.timeZone) ?? .gmt
            let today = SiteCalendar.date(of: now, in: zone)
            let from = today.adding(days: -(Self.overviewDays - 1))
            var rows: [TimesheetDay] = []
            try await services.timesheets.forEachEmployee(
                TimesheetQuery(from: from, through: today, siteId: site.id)
            ) { employee in
                rows += employee.days
            }
            let overview = SiteOverview(siteId: site.id, from: from, through: today, rows: rows)
            let chartId = "chart-" + site.id.rawValue.filter { $0.isLetter || $0.isNumber }
            sections.append([
                "id": site.id.rawValue, "name": site.name, "zone": site.timeZone,
                "chart": OverviewChart.svg(overview, id: chartId, words: viewer.words),
                "overtime": OverviewChart.hours(
                    overview.days.reduce(0) { $0 + $1.overtimeMinutes }, in: viewer.language),
                "exceptions": viewer.words.number(overview.days.reduce(0) { $0 + $1.openExceptions }),
                "days": overview.days.reversed().map { day in
                    [
                        "date": day.date.description, "dateText": viewer.words.date(day.date),
                        "present": viewer.words.number(day.present), "late": viewer.words.number(day.late),
                        "absent": viewer.words.number(day.absent), "leave": viewer.words.number(day.leave),
                        "overtime": OverviewChart.hours(day.overtimeMinutes, in: viewer.language),
                        "exceptions": viewer.words.number(day.openExceptions),
                        "href": "/console/timesheets?from=\(day.date)&to=\(day.date)",
                    ] as [String: Any]
                },
            ])
        }
        return ["sites": sections, "noSites": sections.isEmpty, "span": viewer.words.number(Self.overviewDays)]
    }
}
