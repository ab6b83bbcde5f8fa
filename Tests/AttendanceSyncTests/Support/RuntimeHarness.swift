import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// An uploader whose network can be switched off: while off, every attempt fails as a phone
/// without network does (a transport error), without reaching the server.
final class SwitchableNetwork: Uploader, Sendable {
    let online = Locked(true)
    let attemptsWhileOffline = Locked(0)
    private let inner: any Uploader

    init(_ inner: any Uploader) { self.inner = inner }

    func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        guard online.value else {
            attemptsWhileOffline.withLock { $0 += 1 }
            return Dictionary(
                uniqueKeysWithValues: entries.map {
                    (
                        $0.id,
                        .retry(reason: "offline: the network is unreachable", transport: true, retryAfterSeconds: nil)
                    )
                })
        }
        return await inner.upload(entries)
    }
}

/// A runtime on a virtual clock, with recording ports and a real loopback server behind a
/// switchable network. `at(seconds, event)` first fires every timer that falls due before it,
/// as a phone with execution time would.
final class RuntimeHarness: @unchecked Sendable {
    // @unchecked: used from one test task at a time.
    static let region = BeaconRegion(uuid: SiteBeacon.defaultUUID, major: 1)

    let clock = ManualClock(Fixtures.t0)
    let ports = RecordingPorts()
    let server: LoopbackTestServer
    let network: SwitchableNetwork
    let store: DeviceStore
    var runtime: AttendanceRuntime
    let configuration: Configuration

    init(
        store: DeviceStore? = nil, server: LoopbackTestServer? = nil,
        configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        self.server = try server ?? LoopbackTestServer()
        network = SwitchableNetwork(
            HTTPUploader(
                settings: .init(baseURL: self.server.baseURL, deviceToken: "device-token"), clock: SystemClock()))
        self.store = try store ?? DeviceStore.inMemory()
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(major: 1)]
        configure(&configuration)
        self.configuration = configuration
        runtime = try Self.makeRuntime(
            store: self.store, configuration: configuration, clock: clock, ports: ports, network: network)
    }

    static func makeRuntime(
        store: DeviceStore, configuration: Configuration, clock: ManualClock, ports: RecordingPorts,
        network: SwitchableNetwork
    ) throws -> AttendanceRuntime {
        try AttendanceRuntime(
            store: store, configuration: configuration,
            ports: .init(
                clock: clock, radio: ports, motion: ports, timers: ports, background: ports, notifier: ports,
                uploader: network, telemetry: ports),
            jitterSeed: 3)
    }

    /// The app is killed: a new runtime restores from the same store.
    func relaunchProcess() throws {
        runtime = try Self.makeRuntime(
            store: store, configuration: configuration, clock: clock, ports: ports, network: network)
    }

    func time(_ seconds: Double) -> Date { Fixtures.t0.addingTimeInterval(seconds) }

    func advance(to seconds: Double) async throws {
        let target = time(seconds)
        while let (name, due) = ports.timers.min(by: { $0.value < $1.value }), due <= target {
            clock.set(max(clock.now(), due))
            ports.cancel(name)
            try await runtime.timerFired(name)
        }
        clock.set(target)
    }

    func at(_ seconds: Double, _ event: EngineEvent) async throws {
        try await advance(to: seconds)
        try await runtime.send(event)
    }

    func ranged(_ rssi: Int, from start: Int, count: Int) async throws {
        for second in start..<(start + count) {
            let sample = BeaconSample(
                beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 7), rssi: rssi)
            try await at(Double(second), .beaconsRanged([sample], region: BeaconRegion(uuid: SiteBeacon.defaultUUID)))
        }
    }

    func outboxEvents() throws -> [AttendanceEvent] { try store.entries().map(\.event) }
}
