import AttendanceAppCore
import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The device's inbox and lifecycle with its real engine and SQLite file, and stand-ins for the
/// server: an uploader that accepts everything and a transport that answers the device-state
/// report. What the engine was told, in which order, is read back from its trace.
@Suite struct DeviceInboxTests {
    struct AcceptingUploader: Uploader {
        func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
            Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .delivered(status: 201)) })
        }
    }

    /// Answers `PUT /v1/me/device-state` with 204 and remembers each request's path.
    final class DeviceStateServer: ClientTransport, Sendable {
        let paths = Locked<[String]>([])
        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            paths.withLock { $0.append("\(request.method) \(request.path ?? "")") }
            return (HTTPResponse(status: .noContent), nil)
        }
    }

    let site = SiteBeacon(major: 1)
    var region: BeaconRegion { BeaconRegion(site: site) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "inbox-\(UUID().uuidString)", isDirectory: true)
    let secrets = InMemorySecretStore()
    let server = DeviceStateServer()
    let errors = Locked<[String]>([])
    /// Whether the phone was unlocked since it started (the platform's `protectedDataReadable`).
    let unlocked = Locked(true)
    /// The sites' names of each configuration the device handed the platform.
    let applied = Locked<[[String?]]>([])

    /// A new process of the app on this phone (the same folder and Keychain).
    func process(
        configuration: AttendanceEngine.Configuration? = nil, clock: any AttendanceClock = SystemClock()
    ) -> AttendanceDevice {
        let ports = RecordingPorts()
        var platform = AttendanceDevice.Platform(
            clock: clock, radio: ports, motion: ports, background: ports, notifier: ports,
            makeTimers: { _ in ports }, makeUploader: { _ in AcceptingUploader() }, secrets: secrets,
            reportError: { [errors] context, error in errors.withLock { $0.append("\(context): \(error)") } })
        platform.transport = server
        platform.protectedDataReadable = { [unlocked] in unlocked.value }
        platform.configurationApplied = { [applied] configuration in
            applied.withLock { $0.append(configuration.sites.map(\.name)) }
        }
        if let configuration { platform.fetchConfiguration = { _, _ in configuration } }
        return AttendanceDevice(directory: folder, platform: platform)
    }

    func configuration(siteName: String = "HQ") -> AttendanceEngine.Configuration {
        var configuration = AttendanceEngine.Configuration()
        configuration.sites = [SiteConfiguration(siteID: "hq", name: siteName, major: 1)]
        return configuration
    }

    /// Enrolled in a first process, which then ends; returns how many events its engine traced.
    @discardableResult
    func enrolled() async throws -> Int {
        let first = process()
        try await first.adopt(
            EnrolledDevice(
                serverURL: URL(string: "http://127.0.0.1:9")!, deviceID: "d1", userID: "alice",
                deviceToken: "token", configuration: configuration()))
        return try await traced(first).count
    }

    /// The engine's events as the trace names them, with the time the engine handled each.
    func tracedWithTimes(_ device: AttendanceDevice) async throws -> [(time: String, event: String)] {
        let files = try await device.diagnosticsFiles()
        let trace = try #require(files.first { $0.name.hasSuffix(".csv") })
        return trace.contents.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: ",")
            return columns.count == 3 && columns[1] == "event" ? (String(columns[0]), String(columns[2])) : nil
        }
    }

    /// The engine's events as the trace names them (`launch:regionEvent`, `enter:1`, …), from the
    /// device's own Diagnostics export (a second connection to its database would compete with
    /// its writer).
    func traced(_ device: AttendanceDevice) async throws -> [String] {
        try await tracedWithTimes(device).map(\.event)
    }

    @Test func aRegionEventThatArrivesDuringTheLaunchIsHandledAfterIt() async throws {
        let before = try await enrolled()
        let relaunched = process()
        // iOS relaunches the app for a region event: the launch and the event race to the device.
        async let launch: Void = relaunched.receive(.launch(.regionEvent))
        async let event: Void = relaunched.receive(.engine(.regionEntered(region)))
        _ = try await (launch, event)
        let after = try await traced(relaunched).dropFirst(before)
        #expect(Array(after) == ["launch:regionEvent", "enter:1"])
        #expect(errors.value.isEmpty)
    }

    @Test func postedInputsReachTheEngineInTheOrderPosted() async throws {
        try await enrolled()
        let device = process()
        let consumer = Task { await device.run() }
        device.post(.launch(.userOpened))
        for round in 0..<10 {
            device.post(.engine(round.isMultiple(of: 2) ? .regionEntered(region) : .regionExited(region)))
        }
        // The consumer returns once every input posted before the end was handled: no clock.
        device.finishInbox()
        await consumer.value
        let regions = try await traced(device).filter { $0.hasPrefix("enter") || $0.hasPrefix("exit") }
        #expect(regions == (0..<10).map { $0.isMultiple(of: 2) ? "enter:1" : "exit:1" })
        #expect(errors.value.isEmpty)
    }

    @Test func theConfigurationReachesThePlatformAtEachLaunchAndRefresh() async throws {
        try await enrolled()
        #expect(applied.value == [["HQ"]])
        // The next process: its launch, then a background refresh with a renamed site.
        let device = process(configuration: configuration(siteName: "Head office"))
        try await device.receive(.launch(.regionEvent))
        #expect(applied.value == [["HQ"], ["HQ"]])
        try await device.receive(.backgroundRefresh)
        #expect(applied.value == [["HQ"], ["HQ"], ["Head office"]])
        #expect(errors.value.isEmpty)
    }

    @Test func whatWaitedForTheLaunchKeepsTheTimeIOSReportedIt() async throws {
        try await enrolled()
        let clock = ManualClock(Date())
        let device = process(clock: clock)
        // iOS relaunches the app for a region event, and the phone keeps ranging while the
        // process restores its engine: each callback is posted when iOS reports it.
        let reportedAt = (0..<4).map { second in clock.now().addingTimeInterval(Double(second)) }
        device.post(.launch(.regionEvent))
        device.post(.engine(.regionEntered(region)))
        clock.advance(by: 1)
        for _ in 1..<4 {
            device.post(
                .engine(
                    .beaconsRanged(
                        [BeaconSample(beacon: BeaconIdentity(uuid: site.uuid, major: site.major, minor: 1), rssi: -60)],
                        region: region)))
            clock.advance(by: 1)
        }
        // Leaving writes what the ranging seconds left in memory (a soft step waits for a commit).
        device.post(.engine(.regionExited(region)))
        // The consumer starts only now, 4 s later (the launch was slow).
        clock.advance(by: 4)
        let consumer = Task { await device.run() }
        device.finishInbox()
        await consumer.value
        let trace = try await tracedWithTimes(device)
        let launch = try #require(trace.last { $0.event == "launch:regionEvent" })
        #expect(launch.time == RFC3339.format(reportedAt[0]))
        let enter = try #require(trace.last { $0.event == "enter:1" })
        #expect(enter.time == RFC3339.format(reportedAt[0]))
        // Each ranging second at its own time (the ranging rows are the trace's other rows).
        let files = try await device.diagnosticsFiles()
        let contents = try #require(files.first { $0.name.hasSuffix(".csv") }).contents
        let rangedAt = contents.split(separator: "\n").filter { $0.hasSuffix(",-60") }.map {
            String($0.split(separator: ",")[0])
        }
        #expect(rangedAt == reportedAt[1...].map(RFC3339.format))
        let exit = try #require(trace.last { $0.event == "exit:1" })
        #expect(exit.time == RFC3339.format(reportedAt[3].addingTimeInterval(1)))
        #expect(errors.value.isEmpty)
    }

    @Test func whoWaitsForAnInputIsToldOnceItWasCommitted() async throws {
        try await enrolled()
        let device = process()
        let consumer = Task { await device.run() }
        defer { consumer.cancel() }
        // iOS is taking the background time back: the task stays open until the decision is
        // committed, then the adapter ends it.
        await withCheckedContinuation { (handled: CheckedContinuation<Void, Never>) in
            device.post(.launch(.regionEvent))
            device.post(.engine(.backgroundTimeExpiring), whenHandled: { handled.resume() })
        }
        #expect(try await traced(device).last == "backgroundExpiring")
        #expect(errors.value.isEmpty)
    }

    @Test func anInputSetAsideStillReleasesWhoWaits() async throws {
        // Not enrolled: the input is set aside, and whoever waits for it is still released.
        let device = process()
        let consumer = Task { await device.run() }
        defer { consumer.cancel() }
        await withCheckedContinuation { (handled: CheckedContinuation<Void, Never>) in
            device.post(.engine(.backgroundTimeExpiring), whenHandled: { handled.resume() })
        }
        #expect(await device.setAsideCount == 1)
    }

    @Test func aLaunchInALiveProcessIsNotASecondLaunch() async throws {
        let before = try await enrolled()
        let device = process()
        try await device.receive(.launch(.userOpened))
        try await device.receive(.launch(.backgroundRefresh))
        try await device.receive(.launch(.regionEvent))
        let launches = try await traced(device).dropFirst(before).filter { $0.hasPrefix("launch") }
        #expect(launches == ["launch:userOpened"])
    }

    @Test func theServerIsToldOfPermissionsOnlyWhenTheyChange() async throws {
        try await enrolled()
        let device = process()
        try await device.receive(.launch(.userOpened))
        try await device.send(.permissionsChanged(Permissions(location: .always)))
        try await device.send(.permissionsChanged(Permissions(location: .always)))
        // Every launch reports again; the server already knows.
        let relaunched = process()
        try await relaunched.receive(.launch(.regionEvent))
        try await relaunched.send(.permissionsChanged(Permissions(location: .always)))
        #expect(server.paths.value == ["PUT /v1/me/device-state"])
        try await relaunched.send(.permissionsChanged(Permissions(location: .whenInUse)))
        #expect(server.paths.value == ["PUT /v1/me/device-state", "PUT /v1/me/device-state"])
        #expect(errors.value.isEmpty)
    }

    @Test func withoutEnrollmentInputsAreSetAsideAndCounted() async throws {
        let device = process()
        try await device.receive(.launch(.userOpened))
        try await device.receive(.engine(.regionEntered(region)))
        try await device.receive(.networkReachable)
        #expect(await device.setAsideCount == 2)
        #expect(await device.runtime == nil)
        await #expect(throws: AttendanceDevice.DeviceError.notEnrolled) { try await device.send(.networkReachable) }
    }

    @Test func aBackgroundRefreshFetchesTheConfigurationThenDrains() async throws {
        try await enrolled()
        let device = process(configuration: configuration(siteName: "Head office"))
        try await device.send(.manualCheckIn(site, reason: "Beacon not detected"))
        // The refresh task runs in the process the manual check-in started: no second launch.
        try await device.receive(.backgroundRefresh)
        let status = try #require(try await device.status())
        #expect(status.siteNames == [site: "Head office"])
        #expect(status.outbox.undelivered == 0 && status.outbox.delivered == 1)
        let launches = try await traced(device).filter { $0.hasPrefix("launch") }
        #expect(launches.last == "launch:userOpened")
    }
}
