import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// The state is persisted after every transition; a killed app restores it. Over many random
/// event sequences, a snapshot taken and restored at any step must decide exactly as the
/// uninterrupted engine does.
@Suite struct RestoreEquivalenceTests {
    static let uuid = SiteBeacon.defaultUUID

    /// A random but plausible event: mostly ranging callbacks, with every other kind mixed in.
    static func randomEvent(_ random: inout SplitMix64, at now: Date) -> EngineEvent {
        let majors: [UInt16] = [1, 2, 3]
        let major = majors.randomElement(using: &random)!
        let region = Bool.random(using: &random) ? BeaconRegion(uuid: uuid) : BeaconRegion(uuid: uuid, major: major)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55:
            let samples = majors.map { major in
                let heard = Int.random(in: 0..<4, using: &random) > 0
                return BeaconSample(beacon: BeaconIdentity(uuid: uuid, major: major, minor: UInt16.random(in: 1...3, using: &random)),
                                    rssi: heard ? Int.random(in: -95 ... -50, using: &random) : 0)
            }
            return .beaconsRanged(samples, region: BeaconRegion(uuid: uuid))
        case 55..<63: return .regionEntered(region)
        case 63..<70: return .regionExited(region)
        case 70..<76: return .regionStateDetermined(region, [.inside, .outside, .unknown].randomElement(using: &random)!)
        case 76..<80:
            let activity: MotionSnapshot.Activity = [.walking, .stationary, .unknown, .running].randomElement(using: &random)!
            return .motionUpdated(MotionSnapshot(at: now, activity: activity, steps: Int.random(in: 0...30, using: &random)))
        case 80..<84: return .timerFired(.nextDecision)
        case 84..<86: return .backgroundTimeExpiring
        case 86..<88: return .manualCheckIn(SiteBeacon(uuid: uuid, major: major), reason: "at the desk")
        case 88..<90: return .manualCheckOut(Bool.random(using: &random) ? nil : SiteBeacon(uuid: uuid, major: major), reason: "done")
        case 90..<92: return .appLaunched([.userOpened, .regionEvent, .afterReboot].randomElement(using: &random)!)
        case 92..<94:
            return .permissionsChanged(Permissions(location: [.always, .whenInUse, .denied].randomElement(using: &random)!,
                                                   bluetooth: [.poweredOn, .poweredOff].randomElement(using: &random)!))
        case 94..<96: return Bool.random(using: &random) ? .geofenceEntered(SiteBeacon(uuid: uuid, major: major)) : .geofenceExited(SiteBeacon(uuid: uuid, major: major))
        case 96..<98: return .locationWake
        default: return .uploadFinished(UploadReport(at: now, delivered: 1, pending: 0, deadLetters: 0))
        }
    }

    static func randomConfiguration(_ random: inout SplitMix64) -> Configuration {
        var configuration = Configuration()
        if Bool.random(using: &random) { configuration.sites = [SiteConfiguration(major: 1), SiteConfiguration(major: 2)] }
        configuration.softExitGraceSeconds = [30, 90].randomElement(using: &random)!
        configuration.mergeWindowSeconds = [90, 600].randomElement(using: &random)!
        configuration.heartbeatIntervalSeconds = [60, 900].randomElement(using: &random)!
        return configuration
    }

    @Test(arguments: 0..<40)
    func restoringAtEveryStepDecidesExactlyAsTheUninterruptedRun(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let configuration = Self.randomConfiguration(&random)
        var uninterrupted = Engine(configuration: configuration)
        var restored = uninterrupted
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        var now = Date(timeIntervalSince1970: 1_795_338_000)
        var enqueued = 0
        for step in 0..<400 {
            // Mostly one second apart, sometimes minutes or hours (the app was suspended).
            now = now.addingTimeInterval([1, 1, 1, 2, 7, 45, 700, 5000].randomElement(using: &random)!)
            let event = Self.randomEvent(&random, at: now)
            // A kill and relaunch before this step: only the persisted bytes survive.
            restored = try decoder.decode(Engine.self, from: encoder.encode(restored))
            #expect(restored == uninterrupted, "seed \(seed), step \(step): the restored state differs")
            let expected = uninterrupted.handle(event, now: now)
            let actual = restored.handle(event, now: now)
            #expect(actual == expected, "seed \(seed), step \(step), event \(event)")
            if actual != expected { return }
            enqueued += expected.filter { if case .enqueue = $0 { return true } else { return false } }.count
        }
        // The sequences must exercise decisions, or the comparison proves little.
        #expect(enqueued > 0)
    }

    @Test func restoringAtOneRandomStepGivesTheSameDecisionLog() throws {
        for seed in UInt64(100)..<UInt64(130) {
            var random = SplitMix64(seed: seed)
            let configuration = Self.randomConfiguration(&random)
            var events: [(EngineEvent, Date)] = []
            var now = Date(timeIntervalSince1970: 1_795_338_000)
            for _ in 0..<300 {
                now = now.addingTimeInterval([1, 1, 3, 60, 900].randomElement(using: &random)!)
                events.append((Self.randomEvent(&random, at: now), now))
            }
            var engine = Engine(configuration: configuration)
            let uninterrupted = events.flatMap { engine.handle($0.0, now: $0.1) }
            let cut = Int.random(in: 0..<events.count, using: &random)
            var first = Engine(configuration: configuration)
            var log = events[..<cut].flatMap { first.handle($0.0, now: $0.1) }
            var second = try JSONDecoder().decode(Engine.self, from: JSONEncoder().encode(first))
            log += events[cut...].flatMap { second.handle($0.0, now: $0.1) }
            #expect(log == uninterrupted, "seed \(seed), cut at \(cut)")
        }
    }

    /// A snapshot written before a configuration key existed (here `dwellContestedSupportFraction`,
    /// added in issue #5) restores, after the app update, with that key's default and the open
    /// session intact; decoded plainly it would not restore at all.
    @Test func aSnapshotFromBeforeAConfigurationKeyRestoresWithItsDefault() throws {
        var engine = Engine(configuration: Configuration())
        let t0 = Date(timeIntervalSince1970: 1_795_338_000)
        _ = engine.handle(.regionEntered(BeaconRegion(uuid: Self.uuid, major: 1)), now: t0)
        _ = engine.handle(.manualCheckIn(SiteBeacon(uuid: Self.uuid, major: 1), reason: "at the desk"), now: t0.addingTimeInterval(5))
        #expect(engine.openSessions.count == 1)
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(engine)) as? [String: Any])
        var configuration = try #require(object["configuration"] as? [String: Any])
        #expect(configuration.removeValue(forKey: "dwellContestedSupportFraction") != nil)
        configuration["softExitGraceSeconds"] = 95.0
        object["configuration"] = configuration
        let older = try JSONSerialization.data(withJSONObject: object)

        // The configuration's own decoder gives the missing key its default: restoring is decoding.
        #expect(try JSONDecoder().decode(Engine.self, from: older) == Engine.restore(from: older))
        let restored = try Engine.restore(from: older)
        #expect(restored.openSessions.map(\.key) == engine.openSessions.map(\.key))
        #expect(restored.configuration.dwellContestedSupportFraction == Configuration().dwellContestedSupportFraction)
        #expect(restored.configuration.softExitGraceSeconds == 95)
    }
}
