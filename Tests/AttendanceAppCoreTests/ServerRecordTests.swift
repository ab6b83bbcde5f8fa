import AttendanceAppCore
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceSync
import Foundation
import Testing

/// History's server record and the "Request a correction" sheet: the form's rules (pure), the
/// record beside the phone's (pure), and the client against the real server over loopback.
@Suite struct ServerRecordTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22T09:00:00Z
    static let format = DisplayFormat(
        timeZone: TimeZone(identifier: "UTC")!, locale: Locale(identifier: "en_GB"), catalogue: DisplayFormat.english)

    static func session(
        _ key: SessionKey = "s-1", out: Double? = 28_800, corrected: Bool = false,
        status: String = "closed"
    ) -> ServerSession {
        ServerSession(
            id: key, siteID: "hq", checkInAt: t0, checkOutAt: out.map { t0.addingTimeInterval($0) },
            status: status, corrected: corrected, manual: false)
    }

    @Test func theFormStartsFromTheSessionAndAsksOnlyForWhatChanges() throws {
        var form = CorrectionRequestForm(
            target: .session(Self.session(out: nil)), sites: [.init(id: "hq", name: "HQ")],
            evidence: .init(startedWalkingAt: Self.t0.addingTimeInterval(30_000)))
        #expect(form.checkInAt == Self.t0)
        #expect(form.checkOutAt == Self.t0.addingTimeInterval(30_000), "an open session offers the walk out")
        form.reason = "I left at half past five"
        let draft = try form.draft(now: Self.t0.addingTimeInterval(40_000))
        #expect(draft.sessionKey == "s-1")
        #expect(draft.checkInAt == nil && draft.siteID == nil, "unchanged fields are not asked for")
        #expect(draft.checkOutAt == Self.t0.addingTimeInterval(30_000))
        #expect(draft.evidence == ["motionStartedAt": RFC3339.format(Self.t0.addingTimeInterval(30_000))])
    }

    @Test func theFormNamesEveryFieldToFix() {
        var form = CorrectionRequestForm(target: .session(Self.session()), sites: [], evidence: .init())
        form.reason = " x "
        form.checkOutAt = Self.t0.addingTimeInterval(-60)
        do {
            _ = try form.draft(now: Self.t0.addingTimeInterval(40_000))
            Issue.record("expected errors")
        } catch {
            #expect(error.fields.map(\.english) == ["Reason", "Left"])
        }
        var unchanged = CorrectionRequestForm(target: .session(Self.session()), sites: [], evidence: .init())
        unchanged.reason = "nothing to change"
        #expect(throws: FieldErrors.self) { _ = try unchanged.draft(now: Self.t0.addingTimeInterval(40_000)) }
        var future = CorrectionRequestForm(target: .session(Self.session()), sites: [], evidence: .init())
        future.reason = "left later"
        future.checkOutAt = Self.t0.addingTimeInterval(90_000)
        do {
            _ = try future.draft(now: Self.t0.addingTimeInterval(40_000))
            Issue.record("expected an error")
        } catch {
            #expect(error.fields.map(\.english) == ["Left"])
        }
    }

    @Test func aMissedSessionNeedsASiteAndAnArrival() throws {
        var form = CorrectionRequestForm(
            target: .missing, sites: [.init(id: "hq", name: "HQ"), .init(id: "annex", name: "Annex")],
            evidence: .init(stoppedWalkingAt: Self.t0, startedWalkingAt: Self.t0.addingTimeInterval(-60)))
        #expect(form.checkInAt == Self.t0 && form.checkOutAt == nil, "a walk out before the walk in is not offered")
        form.reason = "phone was flat"
        do {
            _ = try form.draft(now: Self.t0.addingTimeInterval(60))
            Issue.record("expected errors")
        } catch {
            #expect(error.fields.map(\.english) == ["Site"])
        }
        form.siteID = "annex"
        let draft = try form.draft(now: Self.t0.addingTimeInterval(60))
        #expect(draft.sessionKey == nil && draft.siteID == "annex" && draft.checkInAt == Self.t0)
    }

    @Test func theRecordShowsCorrectionsDifferencesAndDecisions() {
        let phone = [
            PhoneSession(
                id: "s-1", site: SiteBeacon(major: 1), checkInAt: Self.t0.addingTimeInterval(600),
                checkOutAt: Self.t0.addingTimeInterval(28_800), manual: false, delivery: .delivered)
        ]
        let requests = [
            ServerRequest(
                id: "req-1", state: "rejected", sessionKey: "s-1", checkInAt: nil, checkOutAt: nil,
                reason: "x", comment: "the door log disagrees", createdAt: Self.t0),
            ServerRequest(
                id: "req-2", state: "pending", sessionKey: nil, checkInAt: Self.t0, checkOutAt: nil,
                reason: "y", comment: nil, createdAt: Self.t0),
        ]
        let model = ServerRecordModel(
            sessions: [Self.session(corrected: true), Self.session("added-1", status: "voided")], requests: requests,
            phone: phone, siteNames: ["hq": "HQ"], format: Self.format, now: Self.t0.addingTimeInterval(40_000))
        #expect(model.rows.count == 2)
        let corrected = model.rows.first { $0.id == "s-1" }
        #expect(
            corrected?.notes == [
                "corrected by your employer", "differs from this phone",
                "request rejected: the door log disagrees",
            ])
        #expect(corrected?.site == "HQ" && corrected?.duration == "8 h 00 min")
        let voided = model.rows.first { $0.id == "added-1" }
        #expect(voided?.notes == ["voided", "not on this phone"] && voided?.correctable == nil)
        #expect(model.footnote.contains("1 of your requests for a missed session is pending"))
    }

    /// A real server with the site HQ and Alice, and the record client of her enrolled phone.
    func aliceEnrolled() async throws -> (repository: any ServerRepository, http: RunningServer, client: RecordClient) {
        let repository = try await Backend.sqlite.makeRepository()
        try await repository.createSite(
            SiteRecord(id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1)))
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let http = try await RunningServer.start(repository: repository, environment: .live)
        let code = try await AuthService(repository: repository, environment: .live).issueEnrollmentCode(for: "alice")
            .code
        let enrolled = try await EnrollmentClient(serverURL: http.baseURL, clock: SystemClock(), timeoutSeconds: 30)
            .enroll(code: code, deviceName: nil, appVersion: nil)
        let client = RecordClient(
            serverURL: http.baseURL, token: enrolled.deviceToken, clock: SystemClock(), timeoutSeconds: 30)
        return (repository, http, client)
    }

    @Test func thePhoneReportsWhatBlocksDetectionAndTheServerKeepsTheLatest() async throws {
        let (repository, http, client) = try await aliceEnrolled()
        defer { Task { try? await http.stop() } }
        let now = Date()
        let blocked = Permissions(location: .whenInUse, preciseLocation: true, bluetooth: .poweredOff)
        try await client.report(blocked, appVersion: "2.4.1", observedAt: now)
        // An older report arriving late does not undo the newer one.
        try await client.report(Permissions(), appVersion: "2.4.0", observedAt: now.addingTimeInterval(-60))
        let kept = try #require(try await repository.devices(userId: "alice").first?.state)
        #expect(kept.appVersion == "2.4.1" && kept.permissions == blocked)
        #expect(kept.blockers == blocked.automaticDetectionBlockers && kept.blockers.count == 2)
        try await client.report(Permissions(), appVersion: "2.4.1", observedAt: now.addingTimeInterval(1))
        #expect(try await repository.devices(userId: "alice").first?.state?.blockers == [])
        // A report from the future is refused, naming the field.
        do {
            try await client.report(Permissions(), appVersion: nil, observedAt: now.addingTimeInterval(3_600))
            Issue.record("a report an hour ahead was accepted")
        } catch .refused(let status, let detail) {
            #expect(status == 422 && detail.contains("observedAt"))
        }
    }

    @Test func theClientReadsTheRecordAndFilesARequestOnTheRealServer() async throws {
        let (repository, http, client) = try await aliceEnrolled()
        defer { Task { try? await http.stop() } }
        #expect(try await client.sessions(from: nil, to: nil).isEmpty)

        let arrived = Date().addingTimeInterval(-30_000)
        var form = CorrectionRequestForm(
            target: .missing, sites: [.init(id: "hq", name: "HQ")],
            evidence: .init(stoppedWalkingAt: arrived))
        form.checkOutAt = arrived.addingTimeInterval(28_000)
        form.reason = "my phone was flat all day"
        let filed = try await client.file(try form.draft(now: Date()))
        #expect(filed.state == "pending")
        _ = try await RequestService(repository: repository, environment: .live).decide(
            id: CorrectionRequestID(filed.id), approve: true, comment: "ok",
            actor: .adminToken)
        let record = try await client.sessions(from: nil, to: nil)
        #expect(record.count == 1 && record.first?.corrected == true)
        #expect(record.first.map { abs($0.checkInAt.timeIntervalSince(arrived)) < 0.001 } == true)
        #expect(try await client.requests().first?.state == "approved")

        // The week view's rows: the approved session, by the site's clock.
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let monday = WeekTimesheetModel.weekStart(containing: arrived, timeZone: berlin)
        // Two weeks: the session may run past Sunday midnight.
        let (days, weeks) = try await client.timesheet(
            from: monday, to: WeekTimesheetModel.weekEnd(WeekTimesheetModel.weekStart(monday, movedBy: 1)))
        let worked = days.reduce(0) { $0 + $1.workedMinutes }
        #expect((466...467).contains(worked), "28,000 s = 466.7 min, split by the day rule: \(days)")
        #expect(days.allSatisfy { $0.timeZone == "Europe/Berlin" && $0.flags.contains("corrected") })
        #expect(weeks.map(\.workedMinutes).reduce(0, +) == worked)
        do {
            _ = try await client.timesheet(from: "2026-06-08", to: "2026-06-01")
            Issue.record("expected a refusal")
        } catch {
            #expect(
                error
                    == .refused(
                        status: 422,
                        detail: "Unprocessable event: 'to' is '2026-06-01'; expected a date on or after 'from'"))
        }

        var bad = form
        bad.siteID = "nowhere"
        let draft = try bad.draft(now: Date())
        do {
            _ = try await client.file(draft)
            Issue.record("expected a refusal")
        } catch {
            #expect(
                error
                    == .refused(
                        status: 422, detail: "Unprocessable event: 'siteId' is 'nowhere'; expected the id of a site"))
        }
    }
}
