import AttendanceModels
@testable import AttendanceSimulation
import Testing

/// The metrics against hand-built ground truth: each rule of docs/ARCHITECTURE.md ("How it is evaluated") on a case small enough
/// to check by hand.
@Suite struct PresenceScoreTests {
    static let ada: UserID = "ada"
    static let hq: SiteID = "hq"
    static func hours(_ h: Double) -> Double { h * 3_600 }

    static func presence(_ start: Double, _ end: Double, site: SiteID = hq) -> TruePresence {
        TruePresence(employee: ada, site: site, start: start, end: end)
    }

    static func session(_ checkIn: Double, _ checkOut: Double?, decided: Double? = nil, site: SiteID = hq) -> RecordedSession {
        RecordedSession(employee: ada, site: site, checkIn: checkIn, checkOut: checkOut, checkInDecidedAt: decided ?? checkIn)
    }

    @Test func aSessionSplitWhileTrulyPresentIsOneFalseCheckOut() {
        let score = PresenceScore(truth: [Self.presence(Self.hours(8), Self.hours(17))],
                                  sessions: [Self.session(Self.hours(8) + 20, Self.hours(12), decided: Self.hours(8) + 26),
                                             Self.session(Self.hours(12) + 300, Self.hours(17) - 30)],
                                  horizon: Self.hours(24))
        #expect(score.falseCheckOuts == 1)
        #expect(score.missedPresences == 0)
        #expect(score.falseCheckIns == 0)
        #expect(score.checkInErrors == [20])
        #expect(score.decisionLatencies == [26])
        #expect(score.checkOutErrors == [30])
        // Recorded 8 h 59 min 10 s − 5 min gap; truly 9 h: 5 min 50 s missing.
        #expect(score.workedMinutesErrors.count == 1)
        #expect(abs(score.workedMinutesErrors[0] - 350.0 / 60) < 1e-9)
    }

    @Test func aWalkByRecordedAsASessionIsOneFalseCheckIn() {
        // Truly never inside; a two-minute session from the corridor.
        let score = PresenceScore(truth: [], sessions: [Self.session(Self.hours(10), Self.hours(10) + 120)], horizon: Self.hours(24))
        #expect(score.falseCheckIns == 1)
        #expect(score.missedPresences == 0)
        #expect(score.falseCheckOuts == 0)
        #expect(score.workedMinutesErrors == [2])
    }

    @Test func anUncoveredHourIsOneMissedPresence() {
        let score = PresenceScore(truth: [Self.presence(Self.hours(9), Self.hours(10))], sessions: [], horizon: Self.hours(24))
        #expect(score.missedPresences == 1)
        #expect(score.checkInErrors.isEmpty)
        #expect(score.workedMinutesErrors == [60])
    }

    @Test func aShortStayNeedNotBeRecordedAndASessionAtTheNeighbourIsFalse() {
        // Five minutes inside: below the 10-minute floor, so not a miss. A session at another site
        // (heard through the wall) overlaps no presence of its own site.
        let score = PresenceScore(truth: [Self.presence(Self.hours(9), Self.hours(9) + 300)],
                                  sessions: [Self.session(Self.hours(9), Self.hours(9) + 300, site: "annex")], horizon: Self.hours(24))
        #expect(score.missedPresences == 0)
        #expect(score.falseCheckIns == 1)
    }

    @Test func aNightShiftIsCutAtMidnightForWorkedMinutesAndAnOpenSessionRunsToTheHorizon() {
        let score = PresenceScore(truth: [Self.presence(Self.hours(22), Self.hours(30))],
                                  sessions: [Self.session(Self.hours(22), nil)], horizon: Self.hours(31))
        #expect(score.missedPresences == 0)
        #expect(score.checkOutErrors.isEmpty)
        // Day 0: 2 h and 2 h; day 1: 6 h true, 7 h recorded (open until the horizon at 07:00).
        #expect(score.workedMinutesErrors.sorted() == [0, 60])
    }

    @Test func percentilesAreNearestRank() {
        let values = (1...100).map(Double.init)
        let p = Percentiles(values)
        #expect(p.p50 == 50 && p.p95 == 95 && p.p99 == 99 && p.max == 100)
        #expect(Percentiles([]) == Percentiles([0]))
        #expect(MedianAndP95([3, 1, 2]).p50 == 2)
    }
}
