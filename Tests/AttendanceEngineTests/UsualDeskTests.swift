import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// The usual desk (`usualDeskToleranceDB`): a phone that stayed an hour at a desk heard at a
/// medium signal knows that desk the next time, and checks in at the stop instead of dwelling.
@Suite struct UsualDeskTests {
    static let region = BeaconRegion(uuid: EngineDriver.uuid)
    static let day = 86_400.0

    /// Day one: a desk heard at about −82 dBm, checked in by dwell, stays `stay` seconds, then
    /// iOS reports the exit and the session ends at the last time heard.
    static func firstDay(
        _ driver: inout EngineDriver, stay: Double, rssi: Int = -82, major: UInt16 = 1, day: Double = 0
    ) {
        var random = SplitMix64(seed: 11)
        let start = day * Self.day
        driver.send(
            .motionUpdated(MotionSnapshot(at: EngineDriver.time(start), activity: .stationary, confidence: .high)),
            at: start)
        driver.send(.regionEntered(region), at: start)
        for second in 0..<600 {
            let time = start + Double(second)
            if second % 60 == 0 {
                driver.send(
                    .motionUpdated(MotionSnapshot(at: EngineDriver.time(time), activity: .stationary)), at: time)
            }
            driver.ranged(at: time, [(major, 100, rssi + Int.random(in: -2...2, using: &random))])
        }
        var second = 900.0
        while second <= stay {
            driver.ranged(at: start + second, [(major, 100, rssi)])
            second += 300
        }
        driver.send(.regionExited(region), at: start + stay + 60)
        driver.advance(to: start + stay + 3_600)
    }

    /// Day two: walks in, stops, and the phone hears the site at `rssi` for a window.
    static func secondArrival(
        _ driver: inout EngineDriver, rssi: Int, neighbour: Int? = nil, major: UInt16 = 1, day: Double = 1
    ) {
        let start = day * Self.day
        driver.send(.regionEntered(region), at: start)
        driver.send(
            .motionUpdated(
                MotionSnapshot(
                    at: EngineDriver.time(start + 1), activity: .walking, confidence: .high,
                    steps: 30)), at: start + 1)
        driver.send(
            .motionUpdated(
                MotionSnapshot(
                    at: EngineDriver.time(start + 2), activity: .stationary, confidence: .high,
                    steps: 40)), at: start + 2)
        for second in 2..<20 {
            var beacons: [(major: UInt16, minor: UInt16, rssi: Int)] = [(major, 100, rssi)]
            if let neighbour { beacons.append((major == 1 ? 2 : 1, 100, neighbour)) }
            driver.ranged(at: start + Double(second), beacons)
        }
    }

    @Test func aSecondArrivalAtTheUsualDeskChecksInAtTheStop() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 2 * 3_600)
        #expect(driver.events(.checkIn).map { $0.evidence?.rule } == ["dwell"])
        #expect(driver.events(.checkOut).count == 1)
        Self.secondArrival(&driver, rssi: -85)
        let checkIns = driver.events(.checkIn)
        #expect(checkIns.map { $0.evidence?.rule } == ["dwell", "usualDesk"])
        #expect(checkIns.last?.timestamp == EngineDriver.time(Self.day))
        // Decided at the end of the first window after the stop, not minutes later.
        #expect(driver.decidedAt(.checkIn).last.map { $0.timeIntervalSince(EngineDriver.time(Self.day)) } ?? 999 <= 10)
    }

    @Test func withoutAUsualDeskTheSameArrivalWaitsForDwell() {
        var driver = EngineDriver()
        Self.secondArrival(&driver, rssi: -85)
        #expect(driver.events(.checkIn).isEmpty)
    }

    @Test func aQuieterSpotThanTheToleranceIsNotTheDesk() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 2 * 3_600)
        Self.secondArrival(&driver, rssi: -90)
        #expect(driver.events(.checkIn).count == 1)
    }

    @Test func anotherSiteHeardLeavesItToDwell() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 2 * 3_600)
        Self.secondArrival(&driver, rssi: -82, neighbour: -95)
        #expect(driver.events(.checkIn).count == 1)
    }

    @Test func aPhoneHasOneUsualDeskPerUUID() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 2 * 3_600, major: 1)
        // A day at the site next door, the same UUID: its desk is now the usual one.
        Self.firstDay(&driver, stay: 2 * 3_600, major: 2, day: 1)
        #expect(driver.events(.checkIn).map(\.site.major) == [1, 2])
        Self.secondArrival(&driver, rssi: -82, day: 2)
        #expect(driver.events(.checkIn).count == 2)
    }

    @Test func aSessionOpenNextDoorKeepsTheUsualDeskFromOpeningASecond() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 2 * 3_600, major: 2)
        // Checked in at site 1 by a strong signal; then only site 2 is heard, at its usual level.
        let start = Self.day
        driver.send(.regionEntered(Self.region), at: start)
        driver.ranged(major: 1, rssi: -60, over: Int(start)..<Int(start) + 5)
        #expect(driver.events(.checkIn).map(\.site.major) == [2, 1])
        Self.secondArrival(&driver, rssi: -82, major: 2, day: 1.01)
        #expect(driver.events(.checkIn).map(\.site.major) == [2, 1])
        #expect(driver.events(.checkOut).count == 1)
    }

    @Test func aShortStayTeachesNothing() {
        var driver = EngineDriver()
        Self.firstDay(&driver, stay: 20 * 60)
        #expect(driver.events(.checkOut).count == 1)
        Self.secondArrival(&driver, rssi: -82)
        #expect(driver.events(.checkIn).count == 1)
    }

    @Test func zeroToleranceTurnsTheRuleOff() {
        var configuration = Configuration()
        configuration.usualDeskToleranceDB = 0
        var driver = EngineDriver(configuration)
        Self.firstDay(&driver, stay: 2 * 3_600)
        Self.secondArrival(&driver, rssi: -82)
        #expect(driver.events(.checkIn).count == 1)
    }

    @Test func theWindowVerdictNeedsAStopEnoughSamplesAndNoNeighbour() {
        let t0 = Date(timeIntervalSince1970: 0)
        var window = RangingWindow(openedAt: t0, trigger: .regionState)
        for second in 1...4 { window.add(rssi: -84, at: t0.addingTimeInterval(Double(second))) }
        let configuration = Configuration()
        #expect(window.verdictAtEnd(configuration, walking: false, usualDeskDBm: -80) == .confirmed(rule: .usualDesk))
        #expect(window.verdictAtEnd(configuration, walking: false, usualDeskDBm: -78) != .confirmed(rule: .usualDesk))
        #expect(
            window.verdictAtEnd(configuration, walking: false, movingNow: true, usualDeskDBm: -80)
                != .confirmed(rule: .usualDesk))
        #expect(window.verdictAtEnd(configuration, walking: false) != .confirmed(rule: .usualDesk))
        var three = RangingWindow(openedAt: t0, trigger: .regionState)
        for second in 1...3 { three.add(rssi: -84, at: t0.addingTimeInterval(Double(second))) }
        #expect(three.verdictAtEnd(configuration, walking: false, usualDeskDBm: -80) != .confirmed(rule: .usualDesk))
        var beside = window
        beside.add(rssi: -84, at: t0.addingTimeInterval(5), alongside: true)
        #expect(beside.verdictAtEnd(configuration, walking: false, usualDeskDBm: -80) != .confirmed(rule: .usualDesk))
    }

    @Test func theSettingsAreChecked() throws {
        var configuration = Configuration()
        configuration.usualDeskToleranceDB = 30
        configuration.usualDeskMinStayMinutes = 5
        #expect(
            configuration.validationErrors().map(\.description) == [
                "configuration field 'usualDeskToleranceDB' is 30.0; expected dB from 0 (off) to 20",
                "configuration field 'usualDeskMinStayMinutes' is 5.0; expected minutes from 10 to 1440 "
                    + "(a walk-by never stays that long)",
            ])
        #expect(throws: ConfigurationError.self) {
            try Configuration.decode(json: Data(#"{"usualDeskToleranceDB": 30}"#.utf8))
        }
        let off = try Configuration.decode(json: Data(#"{"usualDeskToleranceDB": 0}"#.utf8))
        #expect(off.usualDeskToleranceDB == 0 && off.usualDeskMinStayMinutes == 60)
    }
}
