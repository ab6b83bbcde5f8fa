import AttendanceAppCore
import AttendanceSync
import Foundation
import Testing

/// The employee's week view: Monday to Sunday, what each day was, the week against what was
/// expected, and which days may still change.
@Suite struct WeekTimesheetModelTests {
    static let days = [
        ServerTimesheetDay(
            date: "2026-06-01", siteID: "hq", timeZone: "Europe/Berlin", workedMinutes: 480, expectedMinutes: 480,
            status: "present"),
        ServerTimesheetDay(
            date: "2026-06-02", siteID: "hq", timeZone: "Europe/Berlin", workedMinutes: 430, deductedBreakMinutes: 30,
            expectedMinutes: 480, lateMinutes: 20, status: "late", flags: ["corrected"]),
        ServerTimesheetDay(
            date: "2026-06-04", siteID: "hq", timeZone: "Europe/Berlin", workedMinutes: 0, expectedMinutes: 0,
            status: "off", holiday: "Corpus Christi"),
        ServerTimesheetDay(
            date: "2026-06-05", siteID: "hq", timeZone: "Europe/Berlin", workedMinutes: 545, expectedMinutes: 480,
            overtimeMinutes: 65, status: "present", flags: ["open", "provisional"]),
    ]
    static let week = ServerTimesheetWeek(
        weekStart: "2026-06-01", workedMinutes: 1455, expectedMinutes: 1920, overtimeMinutes: 0)

    @Test func aWeekHasALineForEachDayAndSaysWhatEachWas() {
        let model = WeekTimesheetModel(
            weekStart: "2026-06-01", days: Self.days, weeks: [Self.week], siteNames: [:], format: RuntimeFixture.format)
        #expect((model.from, model.to) == ("2026-06-01", "2026-06-07"))
        #expect(model.title == "Week of 1 June 2026")
        #expect(
            model.lines.map(\.title) == [
                "Mon 1 Jun", "Tue 2 Jun", "Wed 3 Jun", "Thu 4 Jun", "Fri 5 Jun", "Sat 6 Jun", "Sun 7 Jun",
            ])
        #expect(model.lines.map(\.worked) == ["8 h 00 min", "7 h 10 min", "–", "–", "9 h 05 min", "–", "–"])
        #expect(model.lines[1].notes == ["late by 20 min", "30 min break deducted", "corrected by your employer"])
        #expect(model.lines[2].notes == ["no record"])
        #expect(model.lines[3].notes == ["day off: Corpus Christi"])
        #expect(model.lines[4].notes == ["still checked in", "not final yet"])
        #expect(model.total == "24 h 15 min of 32 h 00 min expected")
        #expect(model.overtime == nil, "no overtime this week")
        #expect(model.footnote.contains("not final yet"))
    }

    @Test func twoSitesInAWeekAreNamedAndAWeekWithoutScheduleShowsItsTimeAlone() {
        var other = Self.days[0]
        other.siteID = "depot"
        other.workedMinutes = 60
        let model = WeekTimesheetModel(
            weekStart: "2026-06-01", days: [Self.days[0], other],
            weeks: [ServerTimesheetWeek(weekStart: "2026-06-01", workedMinutes: 540)],
            siteNames: ["hq": "Head office", "depot": "Depot"], format: RuntimeFixture.format)
        #expect(model.lines.prefix(2).map(\.title) == ["Mon 1 Jun · Head office", "Mon 1 Jun · Depot"])
        #expect(model.total == "9 h 00 min")
        #expect(model.footnote == "Your employer's count, by each site's clock.")
    }

    @Test func weeksStartOnMondayByTheGivenZone() {
        let sundayNight = ISO8601DateFormatter().date(from: "2026-06-07T22:30:00Z")!
        #expect(
            WeekTimesheetModel.weekStart(containing: sundayNight, timeZone: TimeZone(identifier: "UTC")!)
                == "2026-06-01")
        #expect(
            WeekTimesheetModel.weekStart(containing: sundayNight, timeZone: TimeZone(identifier: "Europe/Berlin")!)
                == "2026-06-08", "already Monday in Berlin")
        #expect(WeekTimesheetModel.weekStart("2026-06-01", movedBy: -1) == "2026-05-25")
        #expect(WeekTimesheetModel.weekStart("2026-12-28", movedBy: 1) == "2027-01-04")
        #expect(WeekTimesheetModel.weekEnd("2026-12-28") == "2027-01-03")
    }
}
