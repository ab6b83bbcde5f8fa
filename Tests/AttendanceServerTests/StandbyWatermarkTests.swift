import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// How current a read standby is, from the primary's log positions: one test per transition.
@Suite struct StandbyWatermarkTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func nothingIsKnownBeforeTheStandbyHasReplayedASampledPosition() {
        var mark = StandbyWatermark()
        #expect(mark.asOf == nil)
        mark.standby(replayedThrough: 500)
        #expect(mark.asOf == nil, "no sample of the primary yet: the standby's position says nothing")
        mark.primary(at: 1_000, readAt: start)
        mark.standby(replayedThrough: 999)
        #expect(mark.asOf == nil)
        #expect(!mark.permitsReading(now: start, maxLag: 3_600))
    }

    @Test func aStandbyThatReachedASampleHoldsWhatThePrimaryHadAtThatSample() {
        var mark = StandbyWatermark()
        mark.primary(at: 1_000, readAt: start)
        mark.primary(at: 2_000, readAt: start + 1)
        mark.primary(at: 3_000, readAt: start + 2)
        mark.standby(replayedThrough: 2_500)
        #expect(mark.asOf == start + 1)
        #expect(mark.staleness(now: start + 4) == 3)
        #expect(mark.permitsReading(now: start + 4, maxLag: 3))
        #expect(!mark.permitsReading(now: start + 4, maxLag: 2.9))
        mark.standby(replayedThrough: 3_000)
        #expect(mark.asOf == start + 2)
    }

    @Test func anIdlePrimaryKeepsAStandbyAtItsPositionCurrent() {
        var mark = StandbyWatermark()
        mark.primary(at: 1_000, readAt: start)
        mark.standby(replayedThrough: 1_000)
        // No commit for a minute: the same position, read again, is now known to hold later.
        mark.primary(at: 1_000, readAt: start + 60)
        mark.standby(replayedThrough: 1_000)
        #expect(mark.asOf == start + 60)
        #expect(mark.staleness(now: start + 60.5) == 0.5)
    }

    @Test func theWatermarkNeverMovesBack() {
        var mark = StandbyWatermark()
        mark.primary(at: 1_000, readAt: start)
        mark.primary(at: 2_000, readAt: start + 5)
        mark.standby(replayedThrough: 2_000)
        #expect(mark.asOf == start + 5)
        // A standby answering with an older position (another replica's reading, say) changes nothing.
        mark.standby(replayedThrough: 1_000)
        #expect(mark.asOf == start + 5)
        // A primary's position read late (an older one) is not a new sample.
        mark.primary(at: 1_500, readAt: start + 6)
        mark.primary(at: 3_000, readAt: start + 7)
        mark.standby(replayedThrough: 2_999)
        #expect(mark.asOf == start + 5)
    }

    @Test func aStandbyThatDoesNotAnswerTakesNoReadsUntilItDoes() {
        var mark = StandbyWatermark()
        mark.primary(at: 1_000, readAt: start)
        mark.standby(replayedThrough: 1_000)
        #expect(mark.permitsReading(now: start, maxLag: 10))
        mark.standbyUnreachable()
        #expect(mark.asOf == nil)
        #expect(!mark.permitsReading(now: start, maxLag: 10))
        mark.primary(at: 1_000, readAt: start + 1)
        mark.standby(replayedThrough: 1_000)
        #expect(mark.asOf == start + 1)
    }

    @Test func aStandbyFarBehindKeepsABoundedHistoryAndAnOlderNeverANewerWatermark() {
        var mark = StandbyWatermark()
        let samples = StandbyWatermark.sampleLimit + 100
        for index in 0..<samples {
            mark.primary(at: UInt64(1_000 + index), readAt: start + Double(index))
        }
        // The oldest 100 samples were dropped: a standby at one of them is not known to be anywhere.
        mark.standby(replayedThrough: 1_050)
        #expect(mark.asOf == nil)
        mark.standby(replayedThrough: 1_100)
        #expect(mark.asOf == start + 100)
    }
}

/// The route a heavy read takes: the standby while it keeps up, the primary otherwise.
@Suite struct ReadRouteTests {
    @Test func withoutAStandbyEveryReadGoesToThePrimaryWithNoAsOf() async throws {
        let primary = try await Backend.sqlite.makeRepository()
        let route = ReadRoute(primary: primary)
        #expect(!route.hasStandby)
        #expect(route.reading().asOf == nil)
        #expect(route.reading().repository as AnyObject === primary as AnyObject)
    }
}
