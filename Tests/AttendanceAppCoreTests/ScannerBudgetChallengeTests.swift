import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@Suite struct ScannerModelTests {
    let t0 = RuntimeFixture.t0
    func sample(_ major: UInt16, _ minor: UInt16, _ rssi: Int) -> BeaconSample {
        BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: major, minor: minor), rssi: rssi)
    }

    @Test func rowsAreLoudestFirstWithSmoothingDistanceAndProximity() {
        var configuration = Configuration()
        configuration.beaconCalibrations = [BeaconCalibration(major: 2, txPowerDBm: -65)]
        var scanner = ScannerModel(configuration: configuration, siteNames: [SiteBeacon(major: 1): "HQ"])
        scanner.ranged([sample(1, 7, -59), sample(2, 3, -80)], at: t0)
        scanner.ranged([sample(1, 7, -59), sample(2, 3, 0)], at: t0.addingTimeInterval(1))
        #expect(scanner.rows.map(\.major) == [1, 2])
        let near = scanner.rows[0]
        #expect(near.site == "HQ")
        #expect(near.smoothedRSSI == -59)
        #expect(abs((near.distanceMeters ?? 0) - 1) < 0.01)    // −59 dBm at the default 1 m power
        #expect(near.proximity == .near)
        #expect(near.rssiText == "-59 dBm (avg -59.0)")
        #expect(near.distanceText == "1.0 m")
        let far = scanner.rows[1]
        #expect(far.rssi == -80)                                // a silent second keeps the last heard value
        #expect(far.site == nil)
        #expect(far.proximity == .far)
        // Calibrated −65 dBm at 1 m: −80 dBm is 10^(15/20) ≈ 5.6 m.
        #expect(abs((far.distanceMeters ?? 0) - 5.62) < 0.05)
    }

    @Test func theSmoothedValueFollowsSlowlyAndSilentBeaconsGoStaleThenAway() {
        var scanner = ScannerModel(configuration: Configuration())
        scanner.ranged([sample(1, 1, -60)], at: t0)
        scanner.ranged([sample(1, 1, -90)], at: t0.addingTimeInterval(1))
        let row = scanner.rows[0]
        #expect(row.rssi == -90)
        #expect(row.smoothedRSSI > -90 && row.smoothedRSSI < -60)
        scanner.ranged([sample(1, 2, -70)], at: t0.addingTimeInterval(12))
        #expect(scanner.rows.map(\.minor) == [2, 1])           // stale rows sink to the bottom
        #expect(scanner.rows.map(\.stale) == [false, true])
        scanner.ranged([], at: t0.addingTimeInterval(62))
        #expect(scanner.rows.map(\.minor) == [2])
        scanner.reset()
        #expect(scanner.rows.isEmpty)
    }
}

@Suite struct RegionBudgetTests {
    func configuration(sites: Int, fences: Int) -> Configuration {
        var configuration = Configuration()
        configuration.sites = (0..<sites).map { index in
            SiteConfiguration(major: UInt16(index + 1),
                              geofence: index < fences ? Geofence(latitude: 52 + Double(index) * 0.1, longitude: 13, radiusMeters: 200) : nil)
        }
        return configuration
    }

    @Test func fewSitesKeepPerSiteRegionsAndEveryGeofence() {
        let configuration = configuration(sites: 3, fences: 3)
        let plan = RegionBudget.plan(requested: Engine(configuration: configuration).monitoredRegions, configuration: configuration)
        #expect(plan.beaconRegions.count == 3)
        #expect(plan.geofences.count == 3)
        #expect(plan.notes.isEmpty)
        #expect(RegionBudget.SiteGeofence.site(fromIdentifier: plan.geofences[0].identifier) == SiteBeacon(major: 1))
        #expect(RegionBudget.SiteGeofence.site(fromIdentifier: "something-else") == nil)
    }

    @Test func tooManySitesCollapseToOneUUIDRegionAndTheNearestGeofencesFill() {
        let configuration = configuration(sites: 25, fences: 25)
        let plan = RegionBudget.plan(requested: Engine(configuration: configuration).monitoredRegions, configuration: configuration,
                                     latitude: 54.4, longitude: 13)
        #expect(plan.beaconRegions == [BeaconRegion(uuid: SiteBeacon.defaultUUID)])
        #expect(plan.count == RegionBudget.iOSLimit)
        // Site 25 is at 54.4°: the nearest first, then outwards.
        #expect(plan.geofences.first?.site.major == 25)
        #expect(Set(plan.geofences.map(\.site.major)) == Set(7...25))
        #expect(plan.notes.count == 2)
        #expect(plan.notes[0].contains("25 site regions do not fit in 20"))
    }

    @Test func nineteenSitesWithoutGeofencesStayPerSite() {
        let configuration = configuration(sites: 19, fences: 0)
        let plan = RegionBudget.plan(requested: Engine(configuration: configuration).monitoredRegions, configuration: configuration)
        #expect(plan.beaconRegions.count == 19)
        #expect(plan.geofences.isEmpty)
    }
}

@Suite struct BeaconChallengeTests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
    @Test func hmacMatchesRFC4231() {
        #expect(hex(HMACSHA256.authenticationCode(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(hex(HMACSHA256.authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(hex(HMACSHA256.authenticationCode(key: [UInt8](repeating: 0xaa, count: 131),
                                                  message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func onlyTheRightKeyForThisBeaconWithinThreeSecondsVerifies() {
        let t0 = RuntimeFixture.t0
        let key = Array("site-1-shared-key".utf8)
        let beacon = BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 7)
        var generator = SplitMix64(seed: 3)
        let challenge = BeaconChallenge(beacon: beacon, at: t0, using: &generator)
        #expect(challenge.nonce.count == 16)
        let answer = challenge.expectedResponse(key: key)
        #expect(challenge.outcome(response: answer, key: key, at: t0.addingTimeInterval(2.9)) == .verified)
        #expect(challenge.outcome(response: answer, key: key, at: t0.addingTimeInterval(3.1)) == .timedOut)
        #expect(challenge.outcome(response: nil, key: key, at: t0.addingTimeInterval(1)) == .timedOut)
        #expect(challenge.outcome(response: answer, key: Array("other".utf8), at: t0) == .mismatch)
        #expect(challenge.outcome(response: answer, key: nil, at: t0) == .unavailable("no shared key for site 1 in the Keychain"))
        // The same nonce for another minor needs another answer: a relayed response fails.
        let other = BeaconChallenge(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 8), nonce: challenge.nonce, at: t0)
        #expect(other.outcome(response: answer, key: key, at: t0) == .mismatch)
    }
}
