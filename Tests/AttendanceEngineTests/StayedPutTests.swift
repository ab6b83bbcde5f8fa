import AttendanceModels
import Foundation
import Testing

@testable import AttendanceEngine

/// A suspected exit is called off when motion history since the site was last heard shows no
/// walk: iOS reports a desk at the edge of coverage outside for minutes at a time, and nobody
/// leaves without walking.
@Suite struct StayedPutTests {
    static func region() -> BeaconRegion { PresenceScenarioTests.siteRegion(1) }

    /// The motion answer at 400 s: no walk and no step in the history from `since`.
    static func stillAt400(since: Double) -> MotionSnapshot {
        MotionSnapshot(at: EngineDriver.time(400), activity: .stationary, confidence: .high, steps: 0,
                       historySince: EngineDriver.time(since))
    }

    /// Checked in at a desk, last heard at 60 s; iOS reports the region left at 400 s (which
    /// dates the last evidence 30 s before it, 370 s).
    func leaving(_ configuration: Configuration = PresenceScenarioTests.perSite([1])) -> EngineDriver {
        var driver = EngineDriver(configuration)
        driver.send(
            .motionUpdated(
                MotionSnapshot(
                    at: EngineDriver.time(0), activity: .stationary, confidence: .high, steps: 30,
                    walkingSince: EngineDriver.time(-60))), at: 0)
        driver.send(.regionEntered(Self.region()), at: 0)
        for second in 1...60 { driver.ranged(at: Double(second), [(1, 10, -60)]) }
        #expect(driver.events(.checkIn).count == 1)
        driver.send(.regionExited(Self.region()), at: 400)
        return driver
    }

    @Test func noWalkSinceLastHeardKeepsTheSession() {
        var driver = leaving()
        if case .leaving = driver.engine.status(of: SiteBeacon(uuid: EngineDriver.uuid, major: 1)) {
        } else {
            Issue.record("the exit is not suspected")
        }
        // The motion answer: still since before the last evidence.
        driver.send(.motionUpdated(Self.stillAt400(since: -200)), at: 400)
        #expect(
            driver.telemetry.contains { $0.kind == .sessionResumed && $0.detail.contains("no walk since last heard") })
        // Well past the merge window: no check-out.
        driver.send(.timerFired(.nextDecision), at: 2_000)
        #expect(driver.events(.checkOut).isEmpty)
        #expect(driver.engine.openSessions.count == 1)
    }

    /// Called off, the exit is followed by one window of ranging: a sample heard then is the
    /// session's evidence again. At its end the ranging stops; with 0 s it never starts.
    @Test func theCalledOffExitIsHeardForOneWindow() {
        var driver = leaving()
        driver.send(.motionUpdated(Self.stillAt400(since: -200)), at: 400)
        #expect(driver.engine.isRanging)
        for second in 401...404 { driver.ranged(at: Double(second), [(1, 10, -80)]) }
        #expect(driver.engine.openSessions.first?.lastHeardAt == EngineDriver.time(404))
        driver.send(.timerFired(.nextDecision), at: 408)
        #expect(!driver.engine.isRanging)
        #expect(driver.actions(at: 408).contains(.stopRanging(BeaconRegion(uuid: EngineDriver.uuid))))

        var configuration = PresenceScenarioTests.perSite([1])
        configuration.stayedPutRangingSeconds = 0
        var unranged = leaving(configuration)
        unranged.send(.motionUpdated(Self.stillAt400(since: -200)), at: 400)
        #expect(!unranged.engine.isRanging)
        #expect(unranged.engine.openSessions.count == 1)
    }

    @Test func aWalkSinceLastHeardLetsTheExitStand() {
        var driver = leaving()
        driver.send(
            .motionUpdated(
                MotionSnapshot(
                    at: EngineDriver.time(400), activity: .stationary, confidence: .high, steps: 120,
                    walkingSince: EngineDriver.time(300), walkEndedAt: EngineDriver.time(380),
                    firstWalkSince: EngineDriver.time(300),
                    historySince: EngineDriver.time(-200))), at: 400)
        driver.send(.timerFired(.nextDecision), at: 2_000)
        #expect(driver.events(.checkOut).count == 1)
    }

    @Test func historyThatDoesNotReachTheLastEvidenceProvesNothing() {
        // iOS's exit moves the last evidence to 30 s before it (370 s); the history starts later.
        var driver = leaving()
        driver.send(.motionUpdated(Self.stillAt400(since: 385)), at: 400)
        driver.send(.timerFired(.nextDecision), at: 2_000)
        #expect(driver.events(.checkOut).count == 1)
    }

    @Test func itCanBeTurnedOff() {
        var configuration = PresenceScenarioTests.perSite([1])
        configuration.stayedPutHoldsSession = false
        var driver = leaving(configuration)
        driver.send(.motionUpdated(Self.stillAt400(since: -200)), at: 400)
        driver.send(.timerFired(.nextDecision), at: 2_000)
        #expect(driver.events(.checkOut).count == 1)
    }
}
