import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// The presence behaviours docs/ENGINE.md and issue #2 promise, each driven through the engine.
@Suite struct PresenceScenarioTests {
    static let uuidRegion = BeaconRegion(uuid: EngineDriver.uuid)
    static func siteRegion(_ major: UInt16) -> BeaconRegion { BeaconRegion(uuid: EngineDriver.uuid, major: major) }

    static func perSite(_ majors: [UInt16]) -> Configuration {
        var configuration = Configuration()
        configuration.sites = majors.map { SiteConfiguration(major: $0) }
        return configuration
    }

    @Test func arrivalAtMinus60ChecksInWithinTenSecondsOfRegionEntry() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 1..<20)
        #expect(driver.events(.checkIn).count == 1)
        let decided = driver.decidedAt(.checkIn)[0].timeIntervalSince(EngineDriver.time(0))
        #expect(decided <= 10)
        #expect(driver.events(.checkIn)[0].timestamp == EngineDriver.time(0))   // the entry, not the decision
        #expect(driver.events(.checkIn)[0].evidence?.rule == "early")
    }

    @Test func arrivalOnAPerSiteRegionChecksInAsFast() {
        var driver = EngineDriver(Self.perSite([1]))
        driver.send(.regionEntered(Self.siteRegion(1)), at: 100)
        driver.ranged(rssi: -60, over: 102..<120)
        let decided = driver.decidedAt(.checkIn)
        #expect(decided.count == 1)
        #expect(decided[0].timeIntervalSince(EngineDriver.time(100)) <= 10)
    }

    @Test(arguments: 1...9)
    func dropoutsOfOneToNineSecondsNeverCheckOut(gap: Int) {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<60)
        driver.ranged(rssi: 0, over: 60..<(60 + gap))
        driver.ranged(rssi: -60, over: (60 + gap)..<(120 + gap))
        #expect(driver.events(.checkOut).isEmpty)
        #expect(!driver.telemetry.contains { $0.kind == .exitSuspected })
        // Leaving afterwards produces exactly one check-out, at the last sample.
        let last = Double(119 + gap)
        driver.send(.regionExited(Self.uuidRegion), at: last + 30)
        driver.advance(to: last + 2000)
        #expect(driver.events(.checkIn).count == 1)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(last)])
    }

    @Test(arguments: [10, 30, 60, 89])
    func silencesShorterThanTheGraceNeverCheckOut(gap: Int) {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<60)
        driver.ranged(rssi: 0, over: 60..<(60 + gap))       // ranging runs and hears nothing
        driver.ranged(rssi: -60, over: (60 + gap)..<(300 + gap))
        driver.advance(to: Double(300 + gap) + 100)
        #expect(driver.events(.checkOut).isEmpty)
        #expect(!driver.telemetry.contains { $0.kind == .exitSuspected })
        #expect(Set(driver.events.map(\.sessionKey)).count == 1)
    }

    @Test func checkOutTimeIsTheLastHeardTimeAfterARegionExit() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -62, over: 0..<300)
        driver.send(.regionExited(Self.uuidRegion), at: 329)
        driver.advance(to: 3000)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(299)])
        #expect(driver.events(.checkOut).first?.reason == "regionExit")
        // Decided once the merge window (600 s) after the last time heard had passed.
        #expect(driver.decidedAt(.checkOut) == [EngineDriver.time(899)])
    }

    @Test func checkOutTimeIsTheLastHeardTimeAfterRangingSilence() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -62, over: 0..<300)
        driver.ranged(rssi: 0, over: 300..<1000)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(299)])
        #expect(driver.events(.checkOut).first?.reason == "rangingSilence")
    }

    @Test func withoutRangingAnExitDatesTheLastPacketByTheExitDelay() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<5)                 // confirmed, then the app is suspended
        driver.send(.regionExited(Self.uuidRegion), at: 7200)
        driver.advance(to: 9000)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(7170)])
    }

    @Test func reEntryWithinTheMergeWindowResumesTheSession() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<100)
        driver.send(.regionExited(Self.uuidRegion), at: 129)
        driver.send(.regionEntered(Self.uuidRegion), at: 400)   // 301 s after last heard < 600 s
        driver.ranged(rssi: -60, over: 400..<500)
        driver.send(.regionExited(Self.uuidRegion), at: 529)
        driver.advance(to: 3000)
        #expect(driver.events(.checkIn).count == 1)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(499)])
        #expect(Set(driver.events.map(\.sessionKey)).count == 1)
        #expect(driver.telemetry.contains { $0.kind == .sessionResumed })
    }

    @Test func reEntryAfterTheMergeWindowStartsANewSession() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<100)
        driver.send(.regionExited(Self.uuidRegion), at: 129)
        driver.send(.regionEntered(Self.uuidRegion), at: 800)   // 701 s after last heard
        driver.ranged(rssi: -60, over: 800..<900)
        let checkIns = driver.events(.checkIn)
        #expect(checkIns.count == 2)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(99)])
        #expect(checkIns[0].sessionKey != checkIns[1].sessionKey)
        #expect(checkIns[1].timestamp == EngineDriver.time(800))
    }

    @Test func aRotatingMinorKeepsOneSession() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        for second in 0..<1800 {
            let minor = UInt16(100 + second / 120)                // a new minor every two minutes
            driver.ranged(at: Double(second), [(1, minor, -61)])
        }
        driver.send(.regionExited(Self.uuidRegion), at: 1829)
        driver.advance(to: 3000)
        #expect(driver.events(.checkIn).count == 1)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(1799)])
        #expect(Set(driver.events.map(\.sessionKey)).count == 1)
    }

    @Test func twoAdjacentSitesAreTrackedIndependently() {
        var driver = EngineDriver(Self.perSite([1, 2]))
        driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(0), activity: .stationary, confidence: .high)), at: 0)
        driver.send(.regionEntered(Self.siteRegion(1)), at: 0)
        driver.send(.regionEntered(Self.siteRegion(2)), at: 0)
        // At site 1's desk, site 2 is faintly audible next door.
        for second in 0..<600 { driver.ranged(at: Double(second), [(1, 10, -60), (2, 20, -83)]) }
        #expect(driver.events(.checkIn).map(\.site.major) == [1])
        // Moves next door: site 1 goes silent, site 2 is strong.
        driver.send(.regionEntered(Self.siteRegion(2)), at: 600)
        for second in 600..<1500 { driver.ranged(at: Double(second), [(1, 10, 0), (2, 20, -58)]) }
        driver.send(.regionExited(Self.siteRegion(1)), at: 629)
        let checkIns = driver.events(.checkIn)
        #expect(checkIns.map(\.site.major) == [1, 2])
        #expect(checkIns[1].timestamp == EngineDriver.time(600))
        let checkOuts = driver.events(.checkOut)
        #expect(checkOuts.map(\.site.major) == [1])
        #expect(checkOuts.map(\.timestamp) == [EngineDriver.time(599)])
        #expect(checkOuts[0].sessionKey == checkIns[0].sessionKey)
        #expect(driver.engine.openSessions.map(\.site.major) == [2])
    }

    /// Not walking, −75 dBm: no single window confirms (the first rule), but the evidence
    /// lasts, so the dwell rule checks in from the region entry once it spans 300 s.
    @Test func aLastingMediumSignalChecksInByDwellFromTheEntry() {
        var driver = EngineDriver()
        var random = SplitMix64(seed: 75)
        driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(0), activity: .stationary, confidence: .high)), at: 0)
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        for second in 0..<1800 {
            if second % 60 == 0 {
                driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(Double(second)), activity: .stationary)), at: Double(second))
            }
            driver.ranged(at: Double(second), [(1, 100, -75 + Int.random(in: -2...2, using: &random))])
            if second % 300 == 0 { driver.send(.regionStateDetermined(Self.uuidRegion, .inside), at: Double(second) + 0.5) }
        }
        let checkIns = driver.events(.checkIn)
        #expect(checkIns.count == 1)
        #expect(checkIns.first?.evidence?.rule == "dwell")
        #expect(checkIns.first?.timestamp == EngineDriver.time(0))
        let insufficient = driver.telemetry.filter { $0.kind == .windowInsufficient }
        #expect(insufficient.count >= 2)
        #expect(insufficient.allSatisfy { $0.detail.contains("not walking") })
    }

    /// An edge-of-coverage desk: iOS reports the region left, the engine ranges for one window,
    /// hears the site weakly and resumes the session; no check-out.
    @Test func anExitIsVerifiedByRangingAndAWeakSampleResumes() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.siteRegion(1)), at: 0)
        driver.ranged(rssi: -60, over: 0..<5)
        #expect(driver.events(.checkIn).count == 1)
        driver.send(.regionExited(Self.siteRegion(1)), at: 600)
        #expect(driver.engine.isRanging)
        driver.ranged(at: 603, [(1, 100, -93)])
        driver.send(.timerFired(.nextDecision), at: 3_000)
        #expect(driver.events(.checkOut).isEmpty)
        #expect(driver.engine.openSessions.count == 1)
        // Without a sample in the verification window the exit stands, at the last time heard.
        driver.send(.regionExited(Self.siteRegion(1)), at: 4_000)
        driver.send(.timerFired(.nextDecision), at: 4_008)
        #expect(!driver.engine.isRanging)
        driver.send(.timerFired(.nextDecision), at: 5_000)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(3_970)])
    }

    /// A desk by the wall hears the neighbouring site (same UUID) strongly, but its own site
    /// louder: the neighbour's window never confirms (its own site confirms first and the
    /// neighbour's window ends undecided; else the neighbour rule refuses it).
    @Test func aSiteOutrankedByItsNeighbourIsNotCheckedIn() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.siteRegion(2)), at: 0)
        for second in 0..<8 { driver.ranged(at: Double(second), [(1, 10, -58), (2, 20, -62)]) }
        driver.send(.timerFired(.nextDecision), at: 30)
        #expect(driver.events(.checkIn).allSatisfy { $0.site.major != 2 })
        #expect(driver.events(.checkIn).map(\.site.major) == [1])
        #expect(driver.telemetry.contains { $0.kind == .windowInsufficient && $0.site?.major == 2 })
    }

    /// A walk-by: the same signal for two minutes, then iOS reports the exit and nothing more is
    /// heard. The evidence never spans the dwell time, so there is no check-in.
    @Test func aWalkByOfTwoMinutesNeverChecksIn() {
        var driver = EngineDriver()
        driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(0), activity: .stationary, confidence: .high)), at: 0)
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        for second in 0..<120 { driver.ranged(at: Double(second), [(1, 100, -75)]) }
        driver.send(.regionExited(Self.uuidRegion), at: 150)
        for minute in 3..<60 { driver.send(.regionStateDetermined(Self.uuidRegion, .outside), at: Double(minute * 60)) }
        #expect(driver.events(.checkIn).isEmpty)
    }

    /// Walked in and stopped (CoreMotion: stationary, steps in the look-back) at a medium signal:
    /// the walking rule confirms at the window's end. Still walking, it waits: a walk through a
    /// neighbouring site on the way to one's own never stops there.
    @Test func walkingInAndStoppingConfirmsAMediumSignal() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(1), activity: .walking, confidence: .high, steps: 14)), at: 1)
        driver.ranged(rssi: -74, over: 1..<5)
        driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(5), activity: .stationary, confidence: .high, steps: 20)), at: 5)
        driver.ranged(rssi: -74, over: 5..<12)
        #expect(driver.events(.checkIn).map { $0.evidence?.rule } == ["walking"])
        #expect(driver.decidedAt(.checkIn) == [EngineDriver.time(8)])

        var through = EngineDriver()
        through.send(.regionEntered(Self.uuidRegion), at: 0)
        for second in 1..<40 {
            through.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(Double(second)), activity: .walking, confidence: .high, steps: 30)), at: Double(second))
            through.ranged(at: Double(second), [(1, 100, -68)])
        }
        #expect(through.events(.checkIn).isEmpty)
    }

    /// Walked in and stopped where another site of the same UUID was heard too, here louder in
    /// one second of eight: a desk by their wall, or the walk through one to the other. The
    /// walking rule leaves that to dwell, which weighs the sites over minutes (in the simulator,
    /// one window's eight seconds checked office staff into the annex for the day).
    @Test func walkingInAndStoppingWhereTwoSitesAreHeardIsLeftToDwell() {
        func run(neighbour: Int?) -> EngineDriver {
            var driver = EngineDriver()
            driver.send(.regionEntered(Self.uuidRegion), at: 0)
            driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(1), activity: .walking, confidence: .high, steps: 14)), at: 1)
            driver.ranged(rssi: -74, over: 1..<5)
            driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(5), activity: .stationary, confidence: .high, steps: 20)), at: 5)
            for second in 5..<12 {
                driver.ranged(at: Double(second), second == 6 && neighbour != nil ? [(1, 100, -74), (2, 200, neighbour ?? 0)] : [(1, 100, -74)])
            }
            return driver
        }
        #expect(run(neighbour: nil).events(.checkIn).map { $0.evidence?.rule } == ["walking"])
        let louder = run(neighbour: -70)
        #expect(louder.events(.checkIn).isEmpty)
        #expect(louder.telemetry.contains { $0.site?.major == 1 && $0.detail.contains("walking, but another site of the same UUID was heard in the window (1 louder") })
        // Heard quieter is heard too: a walk past the neighbour's beacon to a desk by its wall
        // (in the simulator, the annex was louder in each second of a walk into HQ).
        let quieter = run(neighbour: -90)
        #expect(quieter.events(.checkIn).isEmpty)
        #expect(quieter.telemetry.contains { $0.site?.major == 1 && $0.detail.contains("(0 louder, 0 instead, 1 quieter)") })
    }

    /// A strong but unsteady window (median -64 dBm, too unsteady for early confirmation) while
    /// CoreMotion says the person is on the move: like early confirmation, the strong-median rule
    /// waits for the stop (in the simulator, a walk in and out again within 20 s was a session).
    /// Standing still, the same seconds check in by it; stopping later, the next window does.
    @Test func aStrongWindowOnTheMoveWaitsForTheStop() {
        func run(moving: Bool) -> EngineDriver {
            var driver = EngineDriver()
            driver.send(.regionEntered(Self.uuidRegion), at: 0)
            driver.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(0), activity: moving ? .walking : .stationary, confidence: .high)), at: 0)
            for second in 1..<8 { driver.ranged(at: Double(second), [(1, 100, second % 2 == 0 ? -48 : -64)]) }
            driver.advance(to: 8.5)
            return driver
        }
        #expect(run(moving: false).events(.checkIn).map { $0.evidence?.rule } == ["strongMedian"])
        var moving = run(moving: true)
        #expect(moving.events(.checkIn).isEmpty)
        #expect(moving.telemetry.contains { $0.detail.contains("strong, but the person is still on the move") })
        moving.send(.motionUpdated(MotionSnapshot(at: EngineDriver.time(9), activity: .stationary, confidence: .high)), at: 9)
        for second in 9..<17 { moving.ranged(at: Double(second), [(1, 100, second % 2 == 0 ? -48 : -64)]) }
        moving.advance(to: 20)
        #expect(moving.events(.checkIn).map { $0.evidence?.rule } == ["strongMedian"])
        #expect(moving.events(.checkIn).map(\.timestamp) == [EngineDriver.time(0)])
    }

    @Test func heartbeatsAtMostOncePerIntervalWhileInside() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<7200)
        let beats = driver.events(.heartbeat).map(\.timestamp)
        #expect(beats.count == 7)
        let spacings = zip(beats.dropFirst(), beats).map { $0.timeIntervalSince($1) }
        #expect(spacings.allSatisfy { $0 >= 900 })
        #expect(Set(driver.events.map(\.sessionKey)).count == 1)
    }

    @Test func aRegionStateCallbackIsEvidenceForAHeartbeat() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -60, over: 0..<5)
        driver.send(.regionStateDetermined(Self.uuidRegion, .inside), at: 1800)   // screen on, half an hour later
        #expect(driver.events(.heartbeat).map(\.timestamp) == [EngineDriver.time(1770)])
    }

    @Test func aPendingExitIsSettledAtTheNextEventWithTheRecordedTimes() {
        // No timer ever fires: the app is suspended after the exit, and next wakes the next morning.
        var engine = Engine()
        let region = Self.uuidRegion
        _ = engine.handle(.regionEntered(region), now: EngineDriver.time(0))
        for second in 0..<60 {
            let sample = BeaconSample(beacon: BeaconIdentity(uuid: EngineDriver.uuid, major: 1, minor: 1), rssi: -60)
            _ = engine.handle(.beaconsRanged([sample], region: region), now: EngineDriver.time(Double(second)))
        }
        _ = engine.handle(.regionExited(region), now: EngineDriver.time(89))
        let nextMorning = engine.handle(.regionEntered(region), now: EngineDriver.time(86_400))
        let checkOuts = nextMorning.compactMap { action -> AttendanceEvent? in
            if case .enqueue(let event) = action, event.kind == .checkOut { return event } else { return nil }
        }
        #expect(checkOuts.map(\.timestamp) == [EngineDriver.time(59)])
        // And the new arrival is being explored: ranging (still on from verifying the exit) with a
        // decision timer one window away.
        #expect(engine.isRanging)
        #expect(nextMorning.contains(.scheduleTimer(.nextDecision, at: EngineDriver.time(86_408))))
    }

    @Test func backgroundTimeRunningOutDecidesWithTheSamplesSoFar() {
        var driver = EngineDriver()
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(rssi: -61, over: 1..<3)
        driver.send(.backgroundTimeExpiring, at: 3)
        #expect(driver.events(.checkIn).map { $0.evidence?.rule } == ["strongMedian"])
        let last = driver.actions(at: 3)
        #expect(last.contains(.stopRanging(Self.uuidRegion)))
        #expect(last.contains(.endBackgroundTask))
        #expect(!driver.engine.isRanging)
    }

    @Test func sitesOutsideTheConfigurationAndForeignUUIDsAreIgnored() {
        var driver = EngineDriver(Self.perSite([1]))
        driver.send(.regionEntered(Self.uuidRegion), at: 0)
        driver.ranged(major: 9, rssi: -55, over: 0..<30)     // someone else's beacon on the vendor UUID
        let foreign = BeaconSample(beacon: BeaconIdentity(uuid: UUID(), major: 1, minor: 1), rssi: -50)
        for second in 30..<60 { driver.send(.beaconsRanged([foreign], region: BeaconRegion(uuid: foreign.beacon.uuid)), at: Double(second)) }
        #expect(driver.events.isEmpty)
        #expect(driver.engine.trackedSites == [SiteBeacon(major: 1)])
    }
}
