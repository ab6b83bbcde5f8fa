import Foundation
import Testing

@testable import AttendanceSimulation

/// The offline bound's estimator on hand-built days: two sites, A (0) and B (1), next to each
/// other; a second is what the phone heard of each site's loudest beacon, and whether the
/// person walked.
@Suite struct HindsightEstimatorTests {
    typealias Emission = HindsightModel.Emission

    /// At a site its own beacon is heard almost every second around −75 dBm and the neighbour's
    /// now and then around −92; away both are rarely heard, faintly.
    static let model = HindsightModel(
        away: [Emission(nothing: 0.95, meanDBm: -92, sdDB: 6), Emission(nothing: 0.95, meanDBm: -92, sdDB: 6)],
        atSite: [
            [Emission(nothing: 0.05, meanDBm: -75, sdDB: 6), Emission(nothing: 0.7, meanDBm: -92, sdDB: 6)],
            [Emission(nothing: 0.7, meanDBm: -92, sdDB: 6), Emission(nothing: 0.05, meanDBm: -75, sdDB: 6)],
        ],
        switchWhileWalking: 0.02, silenceStart: 1.0 / 63, silenceEnd: 1.0 / 6, minimumSessionSeconds: 300)

    /// A day built stretch by stretch: each stretch gives, per second, what A and B sound like.
    struct Day {
        var seconds: [(a: Int?, b: Int?, walking: Bool)] = []

        /// `count` seconds; `a` and `b` give the reading of second `i` of the stretch.
        mutating func add(
            _ count: Int, walking: Bool = false, a: (Int) -> Int? = { _ in nil }, b: (Int) -> Int? = { _ in nil }
        ) {
            for i in 0..<count { seconds.append((a(i), b(i), walking)) }
        }

        var recording: HindsightRecording {
            var recording = HindsightRecording(sites: 2, seconds: seconds.count)
            for (second, value) in seconds.enumerated() {
                recording.set(second: second, site: 0, rssi: value.a)
                recording.set(second: second, site: 1, rssi: value.b)
                recording.set(second: second, walking: value.walking)
            }
            return recording
        }
    }

    /// A reading around `mean`, ±5 dB in a fixed pattern, missing one second in twenty.
    static func around(_ mean: Int) -> (Int) -> Int? { { $0 % 20 == 7 ? nil : mean + ($0 * 7) % 11 - 5 } }

    /// Away, an approach (heard from its 20th second), a stay at A, a walk out, away.
    static func stay(at minutes: Int, during: (inout Day) -> Void = { _ in }) -> Day {
        var day = Day()
        day.add(600)
        day.add(40, walking: true, a: { $0 >= 20 ? -85 + $0 % 3 : nil })
        during(&day)
        day.add(minutes * 60, a: around(-75))
        day.add(40, walking: true, a: { $0 < 20 ? -85 + $0 % 3 : nil })
        day.add(600)
        return day
    }

    @Test func aStayIsOneSessionDatedAtItsDoors() throws {
        let day = Self.stay(at: 60)
        let sessions = HindsightEstimator(model: Self.model).sessions(day.recording)
        try #require(sessions.count == 1)
        #expect(sessions[0].siteIndex == 0)
        // First heard at 620 s, last at 600 + 40 + 3,600 + 19 = 4,259 s.
        #expect(abs(sessions[0].start - 620) <= 5, "\(sessions)")
        #expect(abs((sessions[0].end ?? 0) - 4_260) <= 5, "\(sessions)")
    }

    @Test func aWalkByOfTheNeighbourIsNoSession() {
        var day = Day()
        day.add(600)
        // Arrives near B from far away, stands 90 s hearing it fairly loud, leaves.
        day.add(10, walking: true, b: { $0 > 5 ? -84 : nil })
        day.add(90, b: Self.around(-82))
        day.add(10, walking: true, b: { $0 < 5 ? -84 : nil })
        day.add(1_200)
        day.seconds += Self.stay(at: 60).seconds
        let sessions = HindsightEstimator(model: Self.model).sessions(day.recording)
        #expect(sessions.map(\.siteIndex) == [0], "\(sessions)")
    }

    @Test func aSilenceInsideAStayDoesNotSplitIt() throws {
        let day = Self.stay(at: 60) { day in
            day.add(1_200, a: Self.around(-75))
            // A scan silence, then five minutes out of coverage (a stairwell), standing still.
            day.add(34)
            day.add(600, a: Self.around(-75))
            day.add(300)
            day.add(600, a: Self.around(-75))
            // A walk to the printer with the receiver silent for 20 s of it.
            day.add(10, walking: true, a: Self.around(-78))
            day.add(20, walking: true)
            day.add(10, walking: true, a: Self.around(-78))
        }
        let sessions = HindsightEstimator(model: Self.model).sessions(day.recording)
        try #require(sessions.count == 1, "\(sessions)")
        #expect(sessions[0].siteIndex == 0)
        #expect(abs(sessions[0].start - 620) <= 5)
    }

    @Test func theSiteLouderMostOfTheStayWinsAgainstANeighbourLouderAtTimes() throws {
        var day = Day()
        day.add(600)
        day.add(40, walking: true, a: { $0 >= 20 ? -85 : nil })
        // Two hours at A near the wall: A around −80, B around −86, but for two minutes in every
        // ten B is the louder (shadowing at the wall).
        day.add(
            7_200,
            a: { ($0 / 120) % 5 == 4 ? -86 + $0 % 5 : -80 + $0 % 5 },
            b: { ($0 / 120) % 5 == 4 ? -79 + $0 % 5 : -86 + $0 % 5 })
        day.add(40, walking: true, a: { $0 < 20 ? -85 : nil })
        day.add(600)
        let sessions = HindsightEstimator(model: Self.model).sessions(day.recording)
        try #require(sessions.count == 1, "\(sessions)")
        #expect(sessions[0].siteIndex == 0)
        // The same day with the sites' roles swapped is a stay at B.
        var swapped = day
        swapped.seconds = day.seconds.map { (a: $0.b, b: $0.a, walking: $0.walking) }
        #expect(HindsightEstimator(model: Self.model).sessions(swapped.recording).map(\.siteIndex) == [1])
    }

    @Test func thePresenceChangesOnlyWhileWalking() {
        // Loud A for ten minutes but nobody walked in: standing still, away cannot become A.
        var still = Day()
        still.add(600)
        still.add(600, a: Self.around(-75))
        #expect(Set(HindsightEstimator(model: Self.model).presence(still.recording)).count == 1)
        // With a walk in between it does.
        var walked = Day()
        walked.add(600)
        walked.add(20, walking: true, a: { $0 >= 10 ? -80 : nil })
        walked.add(600, a: Self.around(-75))
        #expect(HindsightEstimator(model: Self.model).sessions(walked.recording).map(\.siteIndex) == [0])
    }

    @Test func decisionsAreCheckInsAndCheckOutsInTimeOrderDecidedAfterTheRun() {
        let day = Self.stay(at: 30)
        let decisions = HindsightEstimator(model: Self.model).decisions(day.recording, decidedAt: 99_999)
        #expect(decisions.map(\.kind) == [.checkIn, .checkOut])
        #expect(decisions.allSatisfy { $0.decidedAt == 99_999 && $0.siteIndex == 0 })
        #expect(decisions[0].ts < decisions[1].ts)
    }

    /// The model of the built-in world: at a site its own beacons are heard more often and louder
    /// than from outside; the annex next door is heard at HQ, the warehouse 2 km away is not.
    @Test func theDefaultWorldsModelComesFromItsRadio() {
        let model = HindsightModel(world: WorldSpec())
        #expect(model.sites == 3)
        for site in 0..<3 {
            #expect(model.atSite[site][site].nothing < model.away[site].nothing)
            #expect(model.atSite[site][site].meanDBm > model.away[site].meanDBm)
        }
        #expect(model.atSite[0][1].nothing < 0.99)
        #expect(model.atSite[0][2].nothing > 0.99)
        #expect(model.switchWhileWalking == DayPlanner.walkingMetersPerSecond / DayPlanner.approachMeters)
        #expect(HindsightModel(world: WorldSpec()) == model)
    }
}
