import AttendanceAppCore
import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// A runtime on an in-memory store with recording ports and a manual clock, for the screens'
/// view models: real engine decisions, real outbox rows.
struct RuntimeFixture {
    static let t0 = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22 09:00:00 UTC
    static let hq = SiteBeacon(major: 1)
    static let annex = SiteBeacon(major: 2)
    static let format = DisplayFormat(
        timeZone: TimeZone(identifier: "UTC")!, locale: Locale(identifier: "en_GB"), catalogue: DisplayFormat.english)

    /// Answers every upload with one outcome, set by the test.
    final class FixedUploader: Uploader {
        let outcome = Locked<DeliveryOutcome>(.delivered(status: 201))
        func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
            let outcome = outcome.value
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, outcome) })
        }
    }

    let clock = ManualClock(t0)
    let ports = RecordingPorts()
    let uploader = FixedUploader()
    let runtime: AttendanceRuntime

    init() throws {
        var configuration = Configuration()
        configuration.userID = "alice"
        configuration.deviceID = "phone-1"
        configuration.sites = [
            SiteConfiguration(siteID: "hq", name: "HQ", major: 1),
            SiteConfiguration(siteID: "annex", name: "Annex", major: 2),
        ]
        runtime = try AttendanceRuntime(
            store: try DeviceStore.inMemory(), configuration: configuration,
            ports: .init(
                clock: clock, radio: ports, motion: ports, timers: ports, background: ports, notifier: ports,
                uploader: uploader), jitterSeed: 1)
    }

    func at(_ seconds: Double, _ event: EngineEvent) async throws {
        clock.set(Self.t0.addingTimeInterval(seconds))
        try await runtime.send(event)
    }

    func status(at seconds: Double, regionStates: [BeaconRegion: RegionState] = [:]) async throws -> DeviceStatus {
        clock.set(Self.t0.addingTimeInterval(seconds))
        return try await runtime.status(enrollment: nil, regionStates: regionStates)
    }
}
