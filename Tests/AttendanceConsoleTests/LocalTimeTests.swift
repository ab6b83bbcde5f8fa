import Foundation
import Testing

@testable import AttendanceConsole

/// Times in a site's zone, by arithmetic: the same text DateFormatter gives, across DST and the
/// day's edges.
@Suite struct LocalTimeTests {
    func formatter(_ zone: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }

    @Test(arguments: ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "UTC"])
    func itMatchesDateFormatterEveryFiftyMinutesOfAYear(zone: String) {
        let reference = formatter(zone)
        var date = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00Z
        for _ in 0..<(365 * 24 * 60 / 50) {
            #expect(LocalTime.plain(date, zone: zone, in: .english) == reference.string(from: date))
            date += 50 * 60 + 7
        }
    }

    @Test func aTimeIsShownWithItsZoneAndReadBackInIt() throws {
        let date = Date(timeIntervalSince1970: 1_774_746_000)  // 2026-03-29T01:00Z: Berlin has just moved to CEST
        #expect(LocalTime.text(date, zone: "Europe/Berlin", in: .english) == "2026-03-29 03:00 Europe/Berlin")
        #expect(LocalTime.inputValue(date, zone: "Europe/Berlin") == "2026-03-29T03:00")
        #expect(LocalTime.parse("2026-03-29T03:00", zone: "Europe/Berlin") == date)
        #expect(LocalTime.parse("29/03/2026", zone: "Europe/Berlin") == nil)
        #expect(LocalTime.text(nil, zone: "UTC", in: .english) == "")
        #expect(LocalTime.plain(Date(timeIntervalSince1970: -61), zone: "UTC", in: .english) == "1969-12-31 23:58")
    }

    @Test func durationsAreHoursAndMinutes() {
        #expect(LocalTime.duration(minutes: 45) == "45 min")
        #expect(LocalTime.duration(minutes: 485) == "8 h 05 min")
    }
}
