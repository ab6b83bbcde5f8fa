import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceSync
import Foundation
import Testing

/// The device and the server together over a real loopback socket: events decided by the engine,
/// stored in the outbox and drained by `HTTPUploader` (the client generated from openapi.yaml) are
/// accepted by the real HTTP server exactly once, on both storage backends.
@Suite struct DeviceToServerTests {
    /// The real uploader, which can lose answers: the server has processed the batch, the device
    /// never hears back.
    final class LosingUploader: Uploader, Sendable {
        let inner: HTTPUploader
        let answersToLose = Locked(0)

        init(inner: HTTPUploader) { self.inner = inner }

        func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
            let outcomes = await inner.upload(entries)
            let lost = answersToLose.withLock { remaining -> Bool in
                guard remaining > 0 else { return false }
                remaining -= 1
                return true
            }
            guard lost else { return outcomes }
            return Dictionary(
                uniqueKeysWithValues: entries.map {
                    ($0.id, .retry(reason: "the answer was lost", transport: true, retryAfterSeconds: nil))
                })
        }
    }

    @Test(arguments: Backend.allCases, [0, 1])
    func aWorkingDayReachesTheServerOnce(backend: Backend, lostAnswers: Int) async throws {
        let t0 = Date(timeIntervalSince1970: 1_795_338_000)
        let clock = ManualClock(t0)
        let repository = try await backend.makeRepository()
        try await repository.createSite(
            SiteRecord(id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1)))
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let auth = AuthService(repository: repository, environment: .clock({ clock.now() }))
        let enrolled = try await auth.enroll(
            code: try await auth.issueEnrollmentCode(for: "alice").code, platform: "ios", deviceName: nil)
        let http = try await RunningServer.start(repository: repository, environment: .clock({ clock.now() }))
        // 30 s, not the app's 4 s: on a loaded 2-core machine a loopback request has taken longer.
        let server = LosingUploader(
            inner: HTTPUploader(
                settings: .init(
                    baseURL: http.baseURL, deviceToken: enrolled.token, timeoutSeconds: 30, platform: "ios"),
                clock: SystemClock()))
        server.answersToLose.value = lostAnswers

        var configuration = Configuration()
        configuration.userID = "alice"
        configuration.deviceID = enrolled.device.id
        configuration.sites = [SiteConfiguration(siteID: "hq", major: 1)]
        let ports = RecordingPorts()
        let store = try DeviceStore.inMemory()
        let runtime = try AttendanceRuntime(
            store: store, configuration: configuration,
            ports: .init(
                clock: clock, radio: ports, motion: ports, timers: ports, background: ports, notifier: ports,
                uploader: server), jitterSeed: 5)
        let region = BeaconRegion(uuid: SiteBeacon.defaultUUID, major: 1)
        func at(_ seconds: Double, _ event: EngineEvent) async throws {
            clock.set(t0.addingTimeInterval(seconds))
            try await runtime.send(event)
        }
        try await at(0, .regionEntered(region))
        for second in 1...6 {
            try await at(
                Double(second),
                .beaconsRanged(
                    [BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 3), rssi: -60)],
                    region: BeaconRegion(uuid: SiteBeacon.defaultUUID)))
        }
        try await at(3 * 3600, .regionStateDetermined(region, .inside))
        try await at(8 * 3600, .regionExited(region))
        try await at(8 * 3600 + 1200, .locationWake)
        // A lost answer leaves events pending; the next drain, once due, resends them.
        clock.advance(by: 3600)
        try await runtime.drain()

        // The day's events: the check-in, one heartbeat (the screen-on at +3 h), the check-out;
        // every one delivered, none pending, none dead.
        let entries = try store.entries()
        #expect(entries.map(\.event.kind) == [.checkIn, .heartbeat, .checkOut])
        #expect(entries.allSatisfy { $0.state == .delivered })
        // A lost answer: the check-in was sent again (and replayed by the server); the rest once.
        #expect(entries.map(\.attempts) == (lostAnswers > 0 ? [2, 1, 1] : [1, 1, 1]))
        let sessions = try await repository.sessions(SessionFilter(), after: nil, limit: 10)
        #expect(sessions.count == 1)
        let session = try #require(sessions.first)
        #expect(session.userId == "alice" && session.siteId == "hq")
        #expect(session.checkInAt == t0)
        #expect(session.checkOutAt == t0.addingTimeInterval(8 * 3600 - 30))
        #expect(session.checkOutReason == "regionExit")
        #expect(session.lastSeenAt == t0.addingTimeInterval(8 * 3600 - 30))
        let deviceKeys = Set(try store.entries().map(\.event.sessionKey))
        #expect(deviceKeys == [session.sessionKey])
        #expect(server.inner.serverOffersBatch == true)
        // Each answer carried the receipt of its event's row, kept at delivery until checked.
        let answered = try store.answerReceipts()
        #expect(answered.compactMap { $0.receipt.line(1).map(String.init) } == ["checkIn", "heartbeat", "checkOut"])

        // The receipts: every row this phone's events made, checked against the server's signed
        // checkpoint and kept in the device's database (once the sealer has put them in the tree).
        let records = RecordClient(
            serverURL: http.baseURL, token: enrolled.token, clock: SystemClock(), timeoutSeconds: 30)
        let keeper = ReceiptKeeper(store: store, source: records, deviceID: enrolled.device.id)
        var kinds: Set<String> = []
        for _ in 0..<100 where !kinds.contains("checkOut") {
            let state = try await keeper.refresh(now: Date())
            #expect(state?.problem == nil, "\(state?.problem ?? "")")
            kinds = Set(try store.ledgerReceipts().compactMap { $0.receipt.line(1).map(String.init) })
            if !kinds.contains("checkOut") { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(kinds == ["device.enrolled", "checkIn", "heartbeat", "checkOut"])
        // The answers' receipts are confirmed by the pages' (the same entries, a consistent tree).
        #expect(try store.answerReceipts().isEmpty)
        let receipts = try store.ledgerReceipts().map(\.receipt).filter { $0.line(2) != "" }
        #expect(receipts.allSatisfy { $0.line(2) == Substring(session.sessionKey.rawValue) })

        // "My record", checked offline with openssl and Python alone (docs/examples/verify-my-record.sh).
        let file = try #require(try MyRecord.file(store: store, deviceID: enrolled.device.id.rawValue))
        let (status, printed) = try MyRecordScript.verify(file.contents)
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("checkOut \(session.sessionKey.rawValue)"), "\(printed)")
        // The same file with the check-out's reason changed fails.
        let forged = file.contents.replacingOccurrences(of: "regionExit", with: "manual")
        #expect(forged != file.contents)
        #expect(try MyRecordScript.verify(forged).status != 0)
        try await http.stop()
    }
}
