@testable import AttendanceSimulation
import Testing

/// The baselines behave as the products they stand for would.
@Suite struct BaselinePolicyTests {
    @Test func naiveChecksInAtTheCallbackAndSplitsAfterARelaunch() {
        var naive = NaivePolicy()
        #expect(naive.entered(site: 0, at: 100) == [PolicyDecision(kind: .checkIn, siteIndex: 0, ts: 100, decidedAt: 100)])
        #expect(naive.entered(site: 0, at: 200).isEmpty)
        naive.relaunched()
        // The state callback after the relaunch checks in again: a second session for one stay.
        #expect(naive.entered(site: 0, at: 300).map(\.kind) == [.checkIn])
        #expect(naive.exited(site: 0, at: 900) == [PolicyDecision(kind: .checkOut, siteIndex: 0, ts: 900, decidedAt: 900)])
        naive.relaunched()
        #expect(naive.exited(site: 0, at: 950).isEmpty)
    }

    @Test func altBeaconScansTenSecondsEveryFiveMinutes() {
        #expect(AltBeaconPolicy.isScanning(at: 0) && AltBeaconPolicy.isScanning(at: 9))
        #expect(!AltBeaconPolicy.isScanning(at: 10) && !AltBeaconPolicy.isScanning(at: 309))
        #expect(AltBeaconPolicy.isScanning(at: 310))
    }

    @Test func altBeaconEntersWhenAScanHearsAndExitsAfterASilentCycle() {
        var policy = AltBeaconPolicy()
        var decisions: [PolicyDecision] = []
        // Present (heard every second) from 100 s to 2,000 s; the scanner only looks in its windows.
        for second in 0..<3_000 {
            let time = Double(second)
            decisions += policy.tick(at: time)
            let heard: Set<Int> = (100..<2_000).contains(second) ? [0] : []
            decisions += policy.scanned(at: time, heard: heard)
        }
        #expect(decisions.map(\.kind) == [.checkIn, .checkOut])
        // First scan window after 100 s starts at 310 s; the first silent window after 2,000 s is 2,170–2,180 s.
        #expect(decisions.first?.ts == 310)
        #expect(decisions.last?.ts == 2_180)
    }

    @Test func altBeaconDoesNotExitWhenOneSecondOfTheWindowHeardIt() {
        var policy = AltBeaconPolicy()
        _ = policy.scanned(at: 0, heard: [0])
        var decisions: [PolicyDecision] = []
        for second in 310..<320 { decisions += policy.scanned(at: Double(second), heard: second == 315 ? [0] : []) }
        decisions += policy.tick(at: 400)
        #expect(decisions.isEmpty)
    }
}
