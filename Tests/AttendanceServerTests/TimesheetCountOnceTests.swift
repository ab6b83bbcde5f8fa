import AttendanceModels
import AttendanceRules
import Foundation
import Testing

/// A person's time counts once (docs/TIMESHEETS.md, "Overlapping sessions"): sessions that overlap,
/// at two sites or at one, never add up to more than the time that passed. No database.
@Suite struct TimesheetCountOnceTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let other: SiteID = "site-2"

    static func session(_ key: String, at site: SiteID, _ from: String, _ to: String) -> SessionRecord {
        var session = TimesheetFixtures.session(key, in: berlin, from: from, to: to)
        session.siteId = site
        return session
    }

    static func sheet(_ sessions: [SessionRecord], otherBoundary: DayBoundary = .calendar) -> Timesheet {
        var policy = TimesheetPolicy()
        policy.dayBoundary = otherBoundary
        let sites = [
            TimesheetSite(id: TimesheetFixtures.site, timeZone: berlin),
            TimesheetSite(id: other, timeZone: berlin, policy: policy),
        ]
        return Timesheet.compute(
            TimesheetInput(
                from: LocalDate("2026-06-01")!, through: LocalDate("2026-06-07")!, now: TimesheetFixtures.later,
                sites: Dictionary(uniqueKeysWithValues: sites.map { ($0.id, $0) }), schedules: [:],
                assignments: [], leave: [], sessions: sessions))
    }

    static func worked(_ sheet: Timesheet, at site: SiteID) -> Int? {
        sheet.days.first { $0.siteId == site }?.workedMinutes
    }

    @Test func aShortSessionAtASecondSiteInsideTheFirstCountsNothing() throws {
        let sheet = Self.sheet([
            Self.session("a", at: TimesheetFixtures.site, "2026-06-01 08:00", "2026-06-01 16:00"),
            Self.session("b", at: Self.other, "2026-06-01 10:00", "2026-06-01 12:00"),
        ])
        #expect(Self.worked(sheet, at: TimesheetFixtures.site) == 480)
        #expect(Self.worked(sheet, at: Self.other) == 0)
        #expect(sheet.days.first { $0.siteId == Self.other }?.sessionCount == 1, "the session still shows")
        #expect(sheet.weeks.map(\.workedMinutes) == [480], "eight hours passed")
    }

    @Test func overlappingSessionsAtTwoSitesSplitTheTimeAtTheLaterArrival() throws {
        let sheet = Self.sheet([
            Self.session("a", at: TimesheetFixtures.site, "2026-06-01 08:00", "2026-06-01 12:00"),
            Self.session("b", at: Self.other, "2026-06-01 11:00", "2026-06-01 16:00"),
        ])
        #expect(Self.worked(sheet, at: TimesheetFixtures.site) == 240, "the first site keeps 08:00-12:00")
        #expect(Self.worked(sheet, at: Self.other) == 240, "the second counts 12:00-16:00")
        #expect(sheet.weeks.map(\.workedMinutes) == [480])
    }

    @Test func sessionsThatDoNotOverlapCountInFull() throws {
        let sheet = Self.sheet([
            Self.session("a", at: TimesheetFixtures.site, "2026-06-01 08:00", "2026-06-01 12:00"),
            Self.session("b", at: Self.other, "2026-06-01 12:00", "2026-06-01 16:00"),
        ])
        #expect(
            (Self.worked(sheet, at: TimesheetFixtures.site), Self.worked(sheet, at: Self.other)) == (240, 240))
    }

    @Test func overlappingSessionsAtOneSiteStillCountTheirUnion() throws {
        let sheet = Self.sheet([
            Self.session("a", at: TimesheetFixtures.site, "2026-06-01 08:00", "2026-06-01 12:00"),
            Self.session("b", at: TimesheetFixtures.site, "2026-06-01 10:00", "2026-06-01 16:00"),
        ])
        #expect(Self.worked(sheet, at: TimesheetFixtures.site) == 480)
        #expect(sheet.days.first?.sessionCount == 2)
    }

    /// The session that began first keeps the shared time, even where the two are split into days
    /// by different rules (here a night counted by the calendar at one site and wholly on its
    /// start day at the other).
    @Test func theSessionThatBeganFirstKeepsTheTimeWhereverItsPiecesStart() throws {
        let sheet = Self.sheet(
            [
                Self.session("a", at: TimesheetFixtures.site, "2026-06-01 22:00", "2026-06-02 06:00"),
                Self.session("b", at: Self.other, "2026-06-01 23:00", "2026-06-02 03:00"),
            ], otherBoundary: .shiftStart)
        let first = sheet.days.filter { $0.siteId == TimesheetFixtures.site }.map(\.workedMinutes)
        #expect(first == [120, 360], "22:00-24:00 and 00:00-06:00 at the first site")
        #expect(Self.worked(sheet, at: Self.other) == 0, "the later session lies inside the first")
        #expect(sheet.weeks.map(\.workedMinutes) == [480])
    }
}
