import AttendanceModels
import Foundation
import Testing

@Suite struct RFC3339Tests {
    @Test func parsesUTCAndOffsets() throws {
        #expect(try RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(try RFC3339.parse("2026-11-22T09:00:00Z") == Date(timeIntervalSince1970: 1_795_338_000))
        #expect(try RFC3339.parse("2026-11-22T10:00:00+01:00") == Date(timeIntervalSince1970: 1_795_338_000))
        #expect(try RFC3339.parse("2026-11-22T04:30:00-04:30") == Date(timeIntervalSince1970: 1_795_338_000))
        #expect(try RFC3339.parse("2026-11-22t09:00:00.250z") == Date(timeIntervalSince1970: 1_795_338_000.25))
        #expect(try RFC3339.parse("2024-02-29T00:00:00Z") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func formatsInUTCWithMillisecondsOnlyWhenNeeded() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_338_000)) == "2026-11-22T09:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_338_000.25)) == "2026-11-22T09:00:00.250Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 127)) == "1970-01-01T00:02:07Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test func roundTripsAcrossYears() throws {
        for seconds in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 86_399.5) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(try RFC3339.parse(RFC3339.format(date)) == date)
        }
    }

    @Test(arguments: [
        ("2026-11-22 09:00:00", "the offset is missing"),
        ("2026-13-01T00:00:00Z", "month 13 is out of range"),
        ("2026-02-29T00:00:00Z", "day 29 does not exist in 2026-02"),
        ("2026-11-22T09:00:00+0100", "expected ':' in the offset"),
        ("22/11/2026", "the year must be 4 digits"),
        ("2026-11-22T09:00:00Zjunk", "unexpected text after the offset"),
    ])
    func rejectsWithAReason(text: String, reason: String) {
        #expect {
            try RFC3339.parse(text)
        } throws: { error in
            let parseError = error as? RFC3339.ParseError
            return parseError?.value == text && (parseError?.reason.contains(reason) ?? false)
        }
    }
}
