import AttendanceModels
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session as the server keeps it (corrections included): the employer's record.
public struct ServerSession: Hashable, Sendable, Identifiable {
    public var id: SessionKey
    public var siteID: String
    public var checkInAt: Date
    public var checkOutAt: Date?
    /// `open`, `closed` or `voided`.
    public var status: String
    /// A person corrected, added or voided it.
    public var corrected: Bool
    public var manual: Bool

    public init(
        id: SessionKey, siteID: String, checkInAt: Date, checkOutAt: Date?, status: String, corrected: Bool,
        manual: Bool
    ) {
        self.id = id
        self.siteID = siteID
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.status = status
        self.corrected = corrected
        self.manual = manual
    }
}

/// What the employee asks HR to change: a session's times (with its key) or a missed session.
public struct RequestDraft: Hashable, Sendable {
    public var sessionKey: SessionKey?
    public var siteID: String?
    public var checkInAt: Date?
    public var checkOutAt: Date?
    public var reason: String
    /// What the phone knew (motion-dated times, the last beacon heard), RFC 3339.
    public var evidence: [String: String]

    public init(
        sessionKey: SessionKey?, siteID: String?, checkInAt: Date?, checkOutAt: Date?, reason: String,
        evidence: [String: String]
    ) {
        self.sessionKey = sessionKey
        self.siteID = siteID
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.reason = reason
        self.evidence = evidence
    }
}

/// A request and HR's decision on it.
public struct ServerRequest: Hashable, Sendable, Identifiable {
    public var id: String
    /// `pending`, `approved` or `rejected`.
    public var state: String
    public var sessionKey: SessionKey?
    public var checkInAt: Date?
    public var checkOutAt: Date?
    public var reason: String
    public var comment: String?
    public var createdAt: Date

    public init(
        id: String, state: String, sessionKey: SessionKey?, checkInAt: Date?, checkOutAt: Date?, reason: String,
        comment: String?, createdAt: Date
    ) {
        self.id = id
        self.state = state
        self.sessionKey = sessionKey
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.reason = reason
        self.comment = comment
        self.createdAt = createdAt
    }
}

/// Why the employee's record or a request could not be had, worded for the screen.
public enum RecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 400, 404 or 422: the server refused what was sent, with its detail (which field, why).
    case refused(status: Int, detail: String)
    /// 401: this phone's enrollment was revoked.
    case deviceRevoked(detail: String)
    case server(status: Int, detail: String)
    case unreachable(String)

    public var description: String {
        switch self {
        case .refused(_, let detail): "The server refused the request: \(detail)"
        case .deviceRevoked(let detail):
            "This phone's enrollment was revoked (\(detail)). Enroll again with a new code."
        case .server(let status, let detail): "The server answered HTTP \(status): \(detail)"
        case .unreachable(let reason): "Could not reach the server: \(reason)"
        }
    }
}

/// The employee's own record on the server (`GET /v1/me/sessions`, `GET /v1/me/timesheet`) and
/// their correction requests (`GET` and `POST /v1/me/requests`), with the client generated from
/// openapi.yaml. The contract's
/// types are mapped to the app's here, and nowhere else.
public struct RecordClient: Sendable {
    public let serverURL: URL
    public let timeoutSeconds: Double
    private let token: String
    private let transport: any ClientTransport
    private let traffic: TrafficMeter?
    /// The phone's clock, sent in each request's `Date` header.
    private let clock: any AttendanceClock

    public init(
        serverURL: URL, token: String, clock: any AttendanceClock, timeoutSeconds: Double = 15,
        session: URLSession? = nil
    ) {
        let urlSession = session ?? HTTPUploader.ephemeralSession(timeoutSeconds: timeoutSeconds)
        let transport = URLSessionTransport(configuration: .init(session: urlSession))
        self.init(
            serverURL: serverURL, token: token, clock: clock, transport: transport, timeoutSeconds: timeoutSeconds)
    }

    /// The same client over another transport (the simulator's), its bytes counted in `traffic`.
    public init(
        serverURL: URL, token: String, clock: any AttendanceClock, transport: any ClientTransport,
        traffic: TrafficMeter? = nil, timeoutSeconds: Double = 15
    ) {
        self.serverURL = HTTPUploader.serverURL(serverURL)
        self.clock = clock
        self.token = token
        self.timeoutSeconds = timeoutSeconds
        self.transport = transport
        self.traffic = traffic
    }

    private var client: Client {
        let counters: [any ClientMiddleware] = traffic.map { [TrafficCounter(meter: $0)] } ?? []
        return Client(
            serverURL: serverURL, configuration: ContractCoding.configuration, transport: transport,
            middlewares: [DeviceHeaders(token: token, clock: clock), ResponseRecorder()] + counters)
    }

    /// The server's record of this employee between two times, oldest first.
    public func sessions(from: Date?, to: Date?) async throws(RecordError) -> [ServerSession] {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.listMySessions(query: .init(from: from, to: to))
        }
        guard case .ok(let ok) = try Self.output(answer, expected: 200), case .json(let sessions) = ok.body else {
            throw .server(status: 200, detail: "the answer was not a list of sessions")
        }
        return sessions.map(Self.session)
    }

    /// The employee's timesheet from `from` through `to` (local dates `YYYY-MM-DD`, both included).
    public func timesheet(
        from: String, to: String
    ) async throws(RecordError) -> (days: [ServerTimesheetDay], weeks: [ServerTimesheetWeek]) {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.getMyTimesheet(query: .init(from: from, to: to))
        }
        guard case .ok(let ok) = try Self.output(answer, expected: 200), case .json(let page) = ok.body else {
            throw .server(status: 200, detail: "the answer was not a timesheet")
        }
        return (page.days.map(Self.day), page.weeks.map(Self.week))
    }

    public func requests() async throws(RecordError) -> [ServerRequest] {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) { try await client.listMyRequests() }
        guard case .ok(let ok) = try Self.output(answer, expected: 200), case .json(let requests) = ok.body else {
            throw .server(status: 200, detail: "the answer was not a list of requests")
        }
        return requests.map(Self.request)
    }

    /// Files a request; the server answers with it, pending.
    public func file(_ draft: RequestDraft) async throws(RecordError) -> ServerRequest {
        let body = Components.Schemas.RequestInput(
            sessionKey: draft.sessionKey?.rawValue, siteId: draft.siteID, checkInAt: draft.checkInAt,
            checkOutAt: draft.checkOutAt, reason: draft.reason,
            evidence: draft.evidence.isEmpty ? nil : .init(additionalProperties: draft.evidence))
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.fileRequest(body: .json(body))
        }
        guard case .created(let created) = try Self.output(answer, expected: 201),
            case .json(let request) = created.body
        else { throw .server(status: 201, detail: "the answer was not the request") }
        return Self.request(request)
    }

    /// Tells the server what the phone lets the app do (`PUT /v1/me/device-state`), so HR sees a
    /// phone whose detection is blocked. Send it when any of it changes; an older report than the
    /// one the server keeps is ignored there.
    public func report(_ permissions: Permissions, appVersion: String?, observedAt: Date) async throws(RecordError) {
        let body = Components.Schemas.DeviceState(
            location: .init(rawValue: permissions.location.rawValue) ?? .notDetermined,
            preciseLocation: permissions.preciseLocation,
            bluetooth: .init(rawValue: permissions.bluetooth.rawValue) ?? .unknown,
            backgroundRefresh: permissions.backgroundRefreshAvailable ? .available : .denied,
            appVersion: appVersion, observedAt: observedAt)
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.reportDeviceState(body: .json(body))
        }
        _ = try Self.output(answer, expected: 204)
    }

    /// A page of receipts for this phone's ledger rows after row `after` (LEDGER.md, "Receipts").
    public func receipts(after: Int64) async throws(RecordError) -> ReceiptPage {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.listMyReceipts(query: .init(after: after, limit: 200))
        }
        guard case .ok(let ok) = try Self.output(answer, expected: 200), case .json(let page) = ok.body else {
            throw .server(status: 200, detail: "the answer was not a page of receipts")
        }
        var receipts: [LedgerReceipt] = []
        for item in page.items {
            receipts.append(
                LedgerReceipt(
                    rowId: item.rowId, leafIndex: item.leafIndex, entry: item.entry,
                    proof: try Self.hashes(item.proof)))
        }
        return ReceiptPage(
            logKey: page.logKey, checkpoint: page.checkpoint, receipts: receipts, nextAfter: page.nextAfter)
    }

    /// The consistency proof between two of the ledger's checkpoints.
    public func consistency(from: Int64, to: Int64) async throws(RecordError) -> [MerkleTree.Hash] {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.getLedgerConsistencyProof(query: .init(from: from, to: to))
        }
        guard case .ok(let ok) = try Self.output(answer, expected: 200), case .json(let proof) = ok.body else {
            throw .server(status: 200, detail: "the answer was not a consistency proof")
        }
        return try Self.hashes(proof.hashes)
    }

    /// Tells the server the ledger did not match this phone's receipts (shown to its auditors).
    public func reportLedgerWarning(_ problem: String, checkpoint: String?) async throws(RecordError) {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.reportLedgerWarning(
                body: .json(.init(problem: String(problem.prefix(500)), checkpoint: checkpoint)))
        }
        _ = try Self.output(answer, expected: 201)
    }

    /// Sends a site survey from the scanner (`POST /v1/me/surveys`); returns the server's id for it
    /// and how many spots it found to change (the same rule as the app's `SurveyFindings`).
    public func submitSurvey(
        siteID: String, spots: [SurveySpot]
    ) async throws(RecordError) -> (id: Int64, findings: Int) {
        let body = Components.Schemas.SurveyInput(
            siteId: siteID,
            spots: spots.map { spot in
                .init(
                    label: spot.label, kind: .init(rawValue: spot.kind.rawValue) ?? .other,
                    recordedAt: spot.recordedAt, seconds: spot.seconds,
                    readings: spot.readings.map { reading in
                        .init(
                            uuid: reading.beacon.uuid.uuidString, major: Int(reading.beacon.major),
                            minor: Int(reading.beacon.minor), medianRssi: reading.medianRSSI,
                            heardShare: reading.heardShare)
                    })
            })
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client.submitSurvey(body: .json(body))
        }
        guard case .created(let created) = try Self.output(answer, expected: 201), case .json(let summary) = created.body
        else {
            throw .server(status: 201, detail: "the answer was not a survey's summary")
        }
        return (summary.id, summary.findings.count)
    }

    /// A proof's hashes from the contract's base64 strings; each must be 32 bytes.
    static func hashes(_ wire: [String]) throws(RecordError) -> [MerkleTree.Hash] {
        var hashes: [MerkleTree.Hash] = []
        for text in wire {
            guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
                throw .server(status: 200, detail: "a proof holds '\(text.prefix(60))', not base64 of 32 bytes")
            }
            hashes.append(Array(bytes))
        }
        return hashes
    }

    private static func output<Output>(_ answer: Exchange<Output>, expected: Int) throws(RecordError) -> Output {
        switch answer {
        case .failure(let reason): throw .unreachable(reason)
        case .answered(let raw, let output):
            let detail = ResponseClassifier.problemSummary(raw.body) ?? "no detail"
            switch raw.status {
            case expected:
                guard let output else { throw .server(status: raw.status, detail: "the answer could not be read") }
                return output
            case 401: throw .deviceRevoked(detail: detail)
            case 400, 403, 404, 422: throw .refused(status: raw.status, detail: detail)
            default: throw .server(status: raw.status, detail: detail)
            }
        }
    }

    static func session(_ wire: Components.Schemas.Session) -> ServerSession {
        ServerSession(
            id: SessionKey(wire.sessionKey), siteID: wire.siteId, checkInAt: wire.checkInAt,
            checkOutAt: wire.checkOutAt,
            status: wire.status.rawValue, corrected: wire.corrected ?? false, manual: wire.source == .manual)
    }

    static func day(_ wire: Components.Schemas.TimesheetDay) -> ServerTimesheetDay {
        ServerTimesheetDay(
            date: wire.date, siteID: wire.siteId, timeZone: wire.timeZone, firstIn: wire.firstIn, lastOut: wire.lastOut,
            workedMinutes: wire.workedMinutes, measuredBreakMinutes: wire.measuredBreakMinutes,
            deductedBreakMinutes: wire.deductedBreakMinutes, expectedMinutes: wire.expectedMinutes,
            lateMinutes: wire.lateMinutes, earlyMinutes: wire.earlyMinutes, overtimeMinutes: wire.overtimeMinutes,
            status: wire.status.rawValue, flags: wire.flags.map(\.rawValue), holiday: wire.holiday,
            leaveType: wire.leaveType)
    }

    static func week(_ wire: Components.Schemas.TimesheetWeek) -> ServerTimesheetWeek {
        ServerTimesheetWeek(
            weekStart: wire.weekStart, workedMinutes: wire.workedMinutes, expectedMinutes: wire.expectedMinutes,
            overtimeMinutes: wire.overtimeMinutes)
    }

    static func request(_ wire: Components.Schemas.CorrectionRequest) -> ServerRequest {
        ServerRequest(
            id: wire.requestId, state: wire.state.rawValue, sessionKey: wire.sessionKey.map { SessionKey($0) },
            checkInAt: wire.checkInAt, checkOutAt: wire.checkOutAt, reason: wire.reason, comment: wire.comment,
            createdAt: wire.createdAt)
    }
}
