import AttendanceAppCore
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

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's composition root against the real server over loopback HTTP: enrollment with a
/// one-time code, remote configuration, a manual check-in delivered once, and a relaunch that
/// restores everything from disk and the secret store.
@Suite struct AttendanceDeviceTests {
    struct Server {
        let http: RunningServer
        let auth: AuthService
    }

    func startServer() async throws -> Server {
        let repository = try await Backend.sqlite.makeRepository()
        try await repository.createSite(
            SiteRecord(
                id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1),
                geofence: Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150)))
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        return Server(
            http: try await RunningServer.start(repository: repository, environment: .live),
            auth: AuthService(repository: repository, environment: .live))
    }

    /// Requests wait 120 s, not the app's 4 s (uploads) and 15 s (enrollment, record): in the full
    /// parallel run on 2 cores, the in-process server has not answered for over 15 s while other
    /// tests' simulations held both of Swift concurrency's threads.
    func platform(_ ports: RecordingPorts, secrets: any SecretStore, errors: Locked<[String]>)
        -> AttendanceDevice.Platform
    {
        var platform = AttendanceDevice.Platform(
            clock: SystemClock(), radio: ports, motion: ports, background: ports, notifier: ports,
            makeTimers: { _ in ports },
            makeUploader: { settings in
                var patient = settings
                patient.timeoutSeconds = 120
                return HTTPUploader(settings: patient, clock: SystemClock())
            },
            secrets: secrets, appVersion: "1.0 (7)", deviceName: "Alice's iPhone",
            reportError: { context, error in errors.withLock { $0.append("\(context): \(error)") } })
        platform.requestTimeoutSeconds = 120
        return platform
    }

    func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID().uuidString)", isDirectory: true)
    }

    @Test func enrollCheckInByHandRelaunchAndRefresh() async throws {
        let server = try await startServer()
        defer { Task { try? await server.http.stop() } }
        let code = try await server.auth.issueEnrollmentCode(for: "alice").code
        let secrets = InMemorySecretStore()
        let ports = RecordingPorts()
        let errors = Locked<[String]>([])
        let folder = directory()
        let device = AttendanceDevice(directory: folder, platform: platform(ports, secrets: secrets, errors: errors))
        try await device.launch(.userOpened)
        #expect(await !device.isEnrolled)
        #expect(try await device.status() == nil)

        // As typed: lower case with a space; the form normalises it.
        let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
        let form = try EnrollmentForm(
            serverURL: server.http.baseURL.absoluteString, code: typed, phoneName: " Alice's work phone "
        ).validated().get()
        try await device.enroll(serverURL: form.url, code: form.code, phoneName: form.phoneName)
        #expect(await device.isEnrolled)
        #expect(try secrets.read("deviceToken")?.isEmpty == false)
        var status = try #require(try await device.status())
        #expect(status.enrollment?.userID == "alice")
        #expect(status.siteNames == [SiteBeacon(major: 1): "HQ"])
        #expect(status.sites.first?.geofence == Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150))
        #expect(ports.log.contains("monitor \(BeaconRegion(site: SiteBeacon(major: 1)))"))

        var manual = try #require(ManualOverride(.checkIn, format: RuntimeFixture.format, status: status))
        manual.reason = "Beacon not detected"
        try await device.send(try manual.validated().get())
        status = try #require(try await device.status())
        #expect(status.outbox.delivered == 1)
        let sessions = try await server.http.repository.sessions(SessionFilter(userId: "alice"), after: nil, limit: 10)
        #expect(sessions.count == 1)
        #expect(sessions.first?.source == .manual)
        // The name the employee gave the phone is the device's name on the server (the console's).
        #expect(try await server.http.repository.devices(userId: "alice").map(\.deviceName) == ["Alice's work phone"])

        // A relaunch (iOS after a reboot): a new composition root on the same folder and Keychain.
        let relaunched = AttendanceDevice(
            directory: folder, platform: platform(ports, secrets: secrets, errors: errors))
        try await relaunched.launch(.afterReboot)
        let restored = try #require(try await relaunched.status())
        #expect(restored.openSessions.map(\.site) == [SiteBeacon(major: 1)])
        #expect(restored.outbox.delivered == 1)
        try await relaunched.refreshConfiguration()
        #expect(try await relaunched.status()?.siteNames == [SiteBeacon(major: 1): "HQ"])
        let files = try await relaunched.diagnosticsFiles()
        #expect(files.count == 1)
        #expect(files.first?.contents.contains("# config: {") == true)
        // A permission change reaches the server too, which then lists what blocks detection.
        try await relaunched.send(.permissionsChanged(Permissions(location: .whenInUse)))
        let state = try await server.http.repository.devices(userId: "alice").first?.state
        #expect(state?.appVersion == "1.0 (7)" && state?.blockers.first?.contains("While Using") == true)
        #expect(errors.value.isEmpty)
    }

    @Test func aSurveyFromTheScannerReachesTheServerForItsSite() async throws {
        let server = try await startServer()
        defer { Task { try? await server.http.stop() } }
        try await server.http.repository.createSite(
            SiteRecord(id: "annex", name: "Annex", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 2)))
        let code = try await server.auth.issueEnrollmentCode(for: "alice").code
        let errors = Locked<[String]>([])
        let device = AttendanceDevice(
            directory: directory(), platform: platform(RecordingPorts(), secrets: InMemorySecretStore(), errors: errors))
        try await device.enroll(serverURL: server.http.baseURL, code: code)
        var survey = SurveyModel(site: SiteBeacon(major: 1), status: try await device.status())
        #expect(survey.otherSites == [SiteBeacon(major: 2)])
        #expect(survey.start(label: "Desk 4.12", kind: .desk) == nil)
        for _ in 0..<12 {
            survey.ranged([
                BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 1), rssi: -80),
                BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 2, minor: 4), rssi: -70),
            ])
        }
        _ = try survey.save(at: Date()).get()
        #expect(survey.findings.map(\.problem) == [.neighbourLouder(dB: 10)])
        let sent = try await device.submit(survey.survey)
        #expect(sent.findings == 1)
        let kept = try await server.http.repository.surveys(siteId: "hq", limit: 5)
        #expect(kept.map(\.id) == [sent.id])
        let stored = try #require(kept.first)
        #expect(stored.userId == "alice" && stored.survey.site == SiteBeacon(major: 1))
        #expect(stored.survey.spots.map(\.readings) == survey.survey.spots.map(\.readings))
        // Times travel as RFC 3339 with milliseconds.
        let recorded = try #require(survey.survey.spots.first?.recordedAt)
        #expect(abs(try #require(stored.survey.spots.first?.recordedAt).timeIntervalSince(recorded)) < 0.001)
        // A site the employer does not have is refused on the phone, naming the beacons.
        await #expect(throws: AttendanceDevice.DeviceError.self) {
            try await device.submit(SiteSurvey(site: SiteBeacon(major: 9), spots: survey.survey.spots))
        }
        #expect(errors.value.isEmpty)
    }

    @Test func aUsedCodeAndAnUnknownCodeAreTheEmployeesWords() async throws {
        let server = try await startServer()
        defer { Task { try? await server.http.stop() } }
        let code = try await server.auth.issueEnrollmentCode(for: "alice").code
        let errors = Locked<[String]>([])
        let device = AttendanceDevice(
            directory: directory(), platform: platform(RecordingPorts(), secrets: InMemorySecretStore(), errors: errors)
        )
        try await device.enroll(serverURL: server.http.baseURL, code: code)
        let again = AttendanceDevice(
            directory: directory(), platform: platform(RecordingPorts(), secrets: InMemorySecretStore(), errors: errors)
        )
        await #expect {
            try await again.enroll(serverURL: server.http.baseURL, code: code)
        } throws: { error in
            guard case .codeUsedOrExpired = error as? EnrollmentError else { return false }
            return "\(error)".contains("already used or has expired")
        }
        await #expect {
            try await again.enroll(serverURL: server.http.baseURL, code: "ZZZZZ-ZZZZZ")
        } throws: { error in
            // 422 naming the field: the server does not know the code.
            guard case .codeRefused(let detail) = error as? EnrollmentError else { return false }
            return detail.contains("code") && detail.contains("ZZZZZ-ZZZZZ")
        }
        #expect(await !again.isEnrolled)
        // Nothing listens on port 9 (discard): the message says the server was not reached.
        await #expect {
            try await again.enroll(serverURL: URL(string: "http://127.0.0.1:9")!, code: code)
        } throws: { error in
            guard case .unreachable = error as? EnrollmentError else { return false }
            return true
        }
    }

    @Test func withoutEnrollmentEventsAreRefusedClearly() async throws {
        let device = AttendanceDevice(
            directory: directory(),
            platform: platform(RecordingPorts(), secrets: InMemorySecretStore(), errors: Locked([])))
        await #expect(throws: AttendanceDevice.DeviceError.notEnrolled) { try await device.send(.networkReachable) }
        await #expect(throws: AttendanceDevice.DeviceError.notEnrolled) { try await device.refreshConfiguration() }
    }

    /// The background-URLSession uploader's request and classification (iOS) are shared public
    /// functions: here they are driven over plain URLSession against the real server, twice, and
    /// the second answer (a replay) is "delivered" as well.
    @Test func theBackgroundTransportsBatchIsAcceptedOnceAndItsAnswerClassified() async throws {
        let server = try await startServer()
        defer { Task { try? await server.http.stop() } }
        let enrolled = try await server.auth.enroll(
            code: try await server.auth.issueEnrollmentCode(for: "alice").code, platform: "ios", deviceName: nil)
        let t0 = Date().addingTimeInterval(-3600)
        let event = AttendanceEvent(
            kind: .checkIn, userID: "alice", deviceID: enrolled.device.id, site: SiteBeacon(major: 1),
            sessionKey: SessionKey.derive(
                user: "alice", device: enrolled.device.id, site: SiteBeacon(major: 1), checkIn: t0),
            timestamp: t0, source: .manual, reason: "test")
        let entries = [OutboxEntry(id: 7, event: event, enqueuedAt: t0)]
        let settings = HTTPUploader.Settings(baseURL: server.http.baseURL, deviceToken: enrolled.token, platform: "ios")
        let (key, body) = try HTTPUploader.batchRequest(for: entries, settings: settings)
        var request = URLRequest(url: server.http.baseURL.appendingPathComponent("v1/attendance/events"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        request.setValue("Bearer \(enrolled.token)", forHTTPHeaderField: "Authorization")
        for _ in 0..<2 {
            let (data, response) = try await URLSession.shared.upload(for: request, from: body)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let outcomes = HTTPUploader.outcomes(
                status: status, retryAfter: nil, body: data, entries: entries, now: Date())
            guard case .delivered? = outcomes[7] else {
                Issue.record("expected delivered, got \(outcomes) (HTTP \(status))")
                return
            }
        }
        let sessions = try await server.http.repository.sessions(SessionFilter(userId: "alice"), after: nil, limit: 10)
        #expect(sessions.count == 1)
        // A refusal for the whole batch is each entry's.
        let refused = HTTPUploader.outcomes(
            status: 401, retryAfter: nil, body: Data(#"{"title":"Unauthorized","detail":"revoked"}"#.utf8),
            entries: entries, now: Date())
        #expect(refused[7] == .rejected(status: 401, detail: "Unauthorized: revoked"))
    }
}
