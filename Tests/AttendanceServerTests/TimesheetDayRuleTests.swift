import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// The day rule, table-driven (docs/TIMESHEETS.md): which local day a session's hours count on,
/// across night shifts, DST nights, half-hour zones and two sites in one week. No database.
@Suite struct TimesheetDayRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var zone: String
        var boundary: DayBoundary
        /// Local wall times `yyyy-MM-dd HH:mm` at the site.
        var sessions: [(String, String)]
        /// date → (worked minutes, UTC offsets as text)
        var expected: [String: (Int, [String])]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "night shift 22:00-06:00, calendar", zone: "Europe/Berlin", boundary: .calendar,
            sessions: [("2026-06-01 22:00", "2026-06-02 06:00")],
            expected: ["2026-06-01": (120, ["+02:00"]), "2026-06-02": (360, ["+02:00"])]),
        Case(
            name: "night shift 22:00-06:00, shift start", zone: "Europe/Berlin", boundary: .shiftStart,
            sessions: [("2026-06-01 22:00", "2026-06-02 06:00")],
            expected: ["2026-06-01": (480, ["+02:00"])]),
        Case(
            name: "frappe/hrms#3298: 18:00-07:00 is one present day", zone: "Asia/Kolkata", boundary: .shiftStart,
            sessions: [("2026-06-01 18:00", "2026-06-02 07:00")],
            expected: ["2026-06-01": (780, ["+05:30"])]),
        Case(
            name: "Berlin spring forward: 22:00-06:00 is 7 h", zone: "Europe/Berlin", boundary: .calendar,
            sessions: [("2026-03-28 22:00", "2026-03-29 06:00")],
            expected: ["2026-03-28": (120, ["+01:00"]), "2026-03-29": (300, ["+01:00", "+02:00"])]),
        Case(
            name: "Berlin fall back: 22:00-06:00 is 9 h", zone: "Europe/Berlin", boundary: .calendar,
            sessions: [("2026-10-24 22:00", "2026-10-25 06:00")],
            expected: ["2026-10-24": (120, ["+02:00"]), "2026-10-25": (420, ["+02:00", "+01:00"])]),
        Case(
            name: "New York spring forward, shift start", zone: "America/New_York", boundary: .shiftStart,
            sessions: [("2026-03-07 22:00", "2026-03-08 06:00")],
            expected: ["2026-03-07": (420, ["-05:00"])]),
        Case(
            name: "New York fall back: a 25-hour day worked through", zone: "America/New_York",
            boundary: .calendar, sessions: [("2026-11-01 00:00", "2026-11-02 00:00")],
            expected: ["2026-11-01": (1500, ["-04:00", "-05:00"])]),
        Case(
            name: "Kolkata: a day by the site's clock, not UTC", zone: "Asia/Kolkata", boundary: .calendar,
            sessions: [("2026-06-02 02:00", "2026-06-02 10:30")],
            expected: ["2026-06-02": (510, ["+05:30"])]),
        Case(
            name: "a session of 40 h is split over three days", zone: "Europe/Berlin", boundary: .calendar,
            sessions: [("2026-06-01 08:00", "2026-06-03 00:00")],
            expected: ["2026-06-01": (960, ["+02:00"]), "2026-06-02": (1440, ["+02:00"])]),
    ]

    @Test(arguments: cases) func theHoursGoToTheSitesLocalDays(_ example: Case) throws {
        let zone = try #require(TimeZone(identifier: example.zone))
        let sessions = try example.sessions.enumerated().map { index, times in
            TimesheetFixtures.session(
                "s-\(index)", in: zone, from: times.0, to: times.1)
        }
        var site = TimesheetSite(id: TimesheetFixtures.site, timeZone: zone)
        site.policy.dayBoundary = example.boundary
        let sheet = Timesheet.compute(
            TimesheetInput(
                from: LocalDate("2026-01-01")!, through: LocalDate("2026-12-31")!,
                now: TimesheetFixtures.later, sites: [site.id: site], sessions: sessions))
        let found = Dictionary(
            uniqueKeysWithValues: sheet.days.map {
                ($0.date.description, ($0.workedMinutes, $0.utcOffsetSeconds.map(utcOffsetText)))
            })
        #expect(found.keys.sorted() == example.expected.keys.sorted())
        for (date, (worked, offsets)) in example.expected {
            #expect(found[date]?.0 == worked, "worked on \(date)")
            #expect(found[date]?.1 == offsets, "offsets on \(date)")
        }
        #expect(sheet.days.allSatisfy { $0.timeZone == example.zone && $0.status == .present })
    }

    @Test func anEmployeeAtTwoSitesInTwoZonesGetsEachDayByItsSitesClock() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        let other: SiteID = "site-kolkata"
        var sessions = [TimesheetFixtures.session("a", in: berlin, from: "2026-06-01 09:00", to: "2026-06-01 17:00")]
        var late = TimesheetFixtures.session("b", in: kolkata, from: "2026-06-03 23:00", to: "2026-06-04 03:00")
        late.siteId = other
        sessions.append(late)
        let sheet = Timesheet.compute(
            TimesheetInput(
                from: LocalDate("2026-06-01")!, through: LocalDate("2026-06-07")!, now: TimesheetFixtures.later,
                sites: [
                    TimesheetFixtures.site: TimesheetSite(id: TimesheetFixtures.site, timeZone: berlin),
                    other: TimesheetSite(id: other, timeZone: kolkata),
                ], sessions: sessions))
        let rows = sheet.days.map { "\($0.date) \($0.siteId) \($0.workedMinutes) \($0.timeZone)" }
        #expect(
            rows == [
                "2026-06-01 site-1 480 Europe/Berlin", "2026-06-03 site-kolkata 60 Asia/Kolkata",
                "2026-06-04 site-kolkata 180 Asia/Kolkata",
            ])
        #expect(sheet.weeks.map(\.workedMinutes) == [720])
        #expect(sheet.weeks.first?.overtimeMinutes == nil, "no schedule: no overtime")
    }

    @Test func localDatesParseOnlyRealDates() {
        #expect(LocalDate("2028-02-29") != nil)
        #expect(LocalDate("2026-02-29") == nil)
        #expect(LocalDate("2026-1-01") == nil)
        #expect(LocalDate("２０２６-01-01") == nil)
        #expect(LocalDate("2026-06-01")?.weekday == .monday)
        #expect(LocalDate("2026-06-07")?.weekStart == LocalDate("2026-06-01"))
        #expect(LocalDate(dayNumber: LocalDate("2026-03-29")!.dayNumber).description == "2026-03-29")
    }
}

/// Sessions and sites at local wall times, for the timesheet tests.
enum TimesheetFixtures {
    static let site: SiteID = "site-1"
    static let user: UserID = "user-1"
    /// Long after every fixture: nothing is open, unconfirmed or provisional unless a test says so.
    static let later = Date(timeIntervalSince1970: 1_900_000_000)

    static func instant(_ text: String, in zone: TimeZone) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        guard let date = formatter.date(from: text) else { fatalError("not a local time: \(text)") }
        return date
    }

    static func session(
        _ key: String, in zone: TimeZone, from: String, to: String?, lastSeen: String? = nil, user: UserID = user
    ) -> SessionRecord {
        let start = instant(from, in: zone)
        let end = to.map { instant($0, in: zone) }
        return SessionRecord(
            sessionKey: SessionKey(key), userId: user, siteId: site, deviceId: nil, checkInAt: start,
            checkOutAt: end, checkOutReason: end == nil ? nil : "exit",
            lastSeenAt: lastSeen.map { instant($0, in: zone) } ?? end ?? start, source: .automatic)
    }
}
