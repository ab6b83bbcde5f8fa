import AttendanceModels
import Foundation

/// Who is calling, from the bearer token.
public enum Principal: Hashable, Sendable {
    /// The bootstrap admin token (`ATTENDANCE_ADMIN_TOKEN`), which acts as the owner.
    case admin
    /// A console sign-in or an API token, acting through an account.
    case staff(StaffIdentity)
    case device(DeviceID, user: UserID)

    /// Idempotency keys are scoped per caller.
    var scope: String {
        switch self {
        case .admin: return "admin"
        case .staff(let staff): return "account:\(staff.accountId)"
        case .device(let device, _): return "device:\(device.rawValue)"
        }
    }
}

/// Bounds the server enforces on what devices send; each is documented in docs/SERVER.md.
public struct IngestLimits: Hashable, Sendable {
    /// Larger bodies are refused with 413.
    public var maxBodyBytes: Int
    /// Larger batches are refused with 413.
    public var maxBatchItems: Int
    /// A `ts` later than now + this is refused (clock skew allowance).
    public var maxFutureSeconds: Double
    /// A `ts` older than now − this is refused; longer than any offline period a phone has.
    public var maxPastSeconds: Double
    /// Idempotency keys are kept at least this long (published in the OpenAPI document).
    public var idempotencyRetentionSeconds: Double

    public init(maxBodyBytes: Int = 1 << 20, maxBatchItems: Int = 500, maxFutureSeconds: Double = 300,
                maxPastSeconds: Double = 30 * 86_400, idempotencyRetentionSeconds: Double = 30 * 86_400) {
        self.maxBodyBytes = maxBodyBytes
        self.maxBatchItems = maxBatchItems
        self.maxFutureSeconds = maxFutureSeconds
        self.maxPastSeconds = maxPastSeconds
        self.idempotencyRetentionSeconds = idempotencyRetentionSeconds
    }
}

/// Exactly-once ingest of check-ins, check-outs and heartbeats (docs/SERVER.md), independent of HTTP:
/// every answer is a `StoredReply`, so a replay is the same bytes by construction.
public struct IngestService: Sendable {
    public let repository: any AttendanceRepository
    public let limits: IngestLimits
    private let clock: @Sendable () -> Date
    private let directory: DirectoryCache
    /// Told about each session a committed request changed (the console's live presence).
    private let observer: (any SessionObserver)?

    /// `watch`: what lets sites and employees be cached (nil: every check-in reads them).
    public init(repository: any AttendanceRepository, limits: IngestLimits = IngestLimits(),
                observer: (any SessionObserver)? = nil, watch: DirectoryWatch? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.repository = repository
        self.limits = limits
        self.observer = observer
        self.directory = DirectoryCache(watch: watch)
        self.clock = clock
    }

    public enum Endpoint: String, Sendable { case checkIn, checkOut, heartbeat }

    /// `POST /v1/attendance/{check-in, check-out, heartbeat}`.
    public func handle(
        _ endpoint: Endpoint, body: Data, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let key: String
        switch precheck(
            body: body, idempotencyKey: idempotencyKey,
            expected: InputRules.identifierExpectation + ", unique per event")
        {
        case .failure(let problem): return problem.reply
        case .success(let checked): key = checked
        }
        return try await process(endpoint, body: body, key: key, principal: principal, deviceDate: deviceDate)
    }

    /// `POST /v1/attendance/events`: each item as its single endpoint would answer, in order. The
    /// batch's key, every item and the batch's answer commit in one transaction: a crash leaves
    /// all of it or none of it, and the resend with the same key is processed (or replayed) once.
    public func handleBatch(
        body: Data, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let key: String
        switch precheck(body: body, idempotencyKey: idempotencyKey, expected: InputRules.identifierExpectation) {
        case .failure(let problem): return problem.reply
        case .success(let checked): key = checked
        }
        let parsed: [(key: String, item: Result<BatchItem, Problem>)]
        switch BatchItem.parse(body) {
        case .failure(let problem): return problem.reply
        case .success(let items): parsed = items
        }
        guard parsed.count <= limits.maxBatchItems else {
            return Problem(
                413, "Batch too large", "the batch has \(parsed.count) events; the limit is \(limits.maxBatchItems)"
            ).reply
        }
        var items: [BatchWrite] = []
        items.reserveCapacity(parsed.count)
        let changed = ChangedSessions()
        for entry in parsed {
            switch entry.item {
            case .failure(let problem): items.append(.unkeyed(problem.reply))
            case .success(let item):
                items.append(
                    try await prepare(
                        item.endpoint, body: item.payload, key: item.idempotencyKey, principal: principal,
                        deviceDate: deviceDate, changed: changed)
                )
            }
        }
        let keys = parsed.map(\.key)
        let slot = AnswerSlot<[SlotOutcome]>(scope: principal.scope, key: key, requestHash: Replies.canonicalHash(body))
        { outcomes in
            var results: [EventBatchResult] = []
            results.reserveCapacity(outcomes.count)
            for (itemKey, outcome) in zip(keys, outcomes) {
                let reply = Self.reply(to: outcome, key: itemKey)
                let problem = reply.status >= 400 ? try? JSONDecoder().decode(ProblemDetails.self, from: reply.body) : nil
                results.append(EventBatchResult(idempotencyKey: itemKey, status: reply.status, problem: problem))
            }
            return try Replies.json(200, EventBatchResponse(results: results))
        }
        let outcome = try await repository.ingestBatch(items, now: clock(), answering: slot)
        if case .answered = outcome { changed.publish(to: observer) }
        return Self.reply(to: outcome, key: key)
    }

    /// The checks before anything is parsed or stored: the body's size (413), the key (400).
    private func precheck(body: Data, idempotencyKey: String?, expected: String) -> Result<String, Problem> {
        guard body.count <= limits.maxBodyBytes else {
            return .failure(Problem(413, "Body too large", "the body is \(body.count) bytes; the limit is \(limits.maxBodyBytes) bytes"))
        }
        guard let key = idempotencyKey else {
            return .failure(Problem.field("Idempotency-Key", nil, expected: expected))
        }
        do { try InputRules.identifier("Idempotency-Key", key) } catch let problem as Problem {
            return .failure(problem)
        } catch {
            return .failure(Problem.field("Idempotency-Key", key, expected: expected))
        }
        return .success(key)
    }

    // MARK: - Processing

    /// One request, one transaction: validation and lookups first (reads), then the key's claim,
    /// the session write and the answer commit together. A refusal is stored under the key too, so
    /// its replay is the same bytes; a key used before gets its replay, 422 or 409.
    private func process(
        _ endpoint: Endpoint, body: Data, key: String, principal: Principal, deviceDate: Date?
    ) async throws -> StoredReply {
        let outcome: SlotOutcome
        let changed = ChangedSessions()
        switch try await prepare(
            endpoint, body: body, key: key, principal: principal, deviceDate: deviceDate, changed: changed)
        {
        case .checkIn(let command, let slot):
            outcome = try await repository.checkIn(command, now: clock(), answering: slot)
        case .apply(let command, let slot): outcome = try await repository.apply(command, now: clock(), answering: slot)
        case .refusal(let slot):
            outcome = try await repository.storeAnswer(try slot.render(()), now: clock(), answering: slot)
        case .unkeyed(let reply): return reply
        }
        if case .answered = outcome { changed.publish(to: observer) }
        return Self.reply(to: outcome, key: key)
    }

    /// Validates a request and looks up its site and employee (reads only): the write it asks
    /// for, with the slot its answer goes to, or the refusal to store under its key. Throws only
    /// the server's own failures (a lookup that failed), which are never stored.
    private func prepare(
        _ endpoint: Endpoint, body: Data, key: String, principal: Principal, deviceDate: Date?,
        changed: ChangedSessions
    ) async throws -> BatchWrite
    {
        let scope = principal.scope
        // The payload's identity: its decoded content re-encoded with sorted keys (so key order and
        // spacing don't make another payload); the raw bytes when it doesn't decode.
        var requestHash = Replies.rawHash(body)
        do {
            switch endpoint {
            case .checkIn:
                let request = try decode(CheckInRequest.self, body)
                requestHash = try Replies.contentHash(request)
                let command = try await checkInCommand(request, principal: principal, deviceDate: deviceDate)
                return .checkIn(command, AnswerSlot(scope: scope, key: key, requestHash: requestHash) { found in
                    if case .recorded(let session, _) = found, session.userId == command.userId { changed.add(session) }
                    return try Self.reply(to: found, command: command)
                })
            case .checkOut, .heartbeat:
                let (command, ts) = try sessionEventCommand(endpoint, body: body, principal: principal, hash: &requestHash)
                return .apply(command, AnswerSlot(scope: scope, key: key, requestHash: requestHash) { found in
                    if case .applied(let session) = found { changed.add(session) }
                    return try Self.reply(to: found, sessionKey: command.sessionKey, ts: ts)
                })
            }
        } catch let problem as Problem {
            let reply = problem.reply
            return .refusal(AnswerSlot(scope: scope, key: key, requestHash: requestHash) { reply })
        }
    }

    private static func reply(to outcome: SlotOutcome, key: String) -> StoredReply {
        switch outcome {
        case .answered(let reply): reply
        case .earlier(let claim): reply(to: claim, key: key)
        }
    }

    private static func reply(to found: CheckInOutcome, command: CheckInCommand) throws -> StoredReply {
        switch found {
        case .recorded(let session, let created):
            guard session.userId == command.userId else {
                return Problem(403, "Forbidden", "the session '\(command.sessionKey)' belongs to another user").reply
            }
            return try Replies.json(created ? 201 : 200, SessionBody(session))
        case .employeeInactive(let user):
            return Problem.field(
                "userId", user.rawValue, expected: "an active employee (this one was deactivated)", status: 422
            ).reply
        case .siteInactive(let site):
            return Problem.field(
                "siteId", site.rawValue, expected: "an active site (this one was deleted)", status: 422
            ).reply
        }
    }

    private static func reply(to claim: IdempotencyClaim, key: String) -> StoredReply {
        switch claim {
        case .replay(let reply): return reply
        case .payloadMismatch:
            return Problem(422, "Idempotency key reused", "the Idempotency-Key '\(key)' was already used with a different payload").reply
        case .inFlight, .claimed:
            return Problem(409, "Request in progress", "a request with the Idempotency-Key '\(key)' is still being processed; retry later").reply
        }
    }

    private static func reply(to found: SessionEventOutcome, sessionKey: SessionKey, ts: String) throws -> StoredReply {
        switch found {
        case .applied(let session): return try Replies.json(200, SessionBody(session))
        case .pending: return try Replies.json(202, PendingEventBody(sessionKey: sessionKey.rawValue))
        case .forbidden: return Problem(403, "Forbidden", "the session '\(sessionKey)' belongs to another user").reply
        case .checkOutBeforeCheckIn(let checkInAt):
            return Problem.field("ts", ts, expected: "a time at or after the session's check-in (\(RFC3339.format(checkInAt)))", status: 422).reply
        }
    }

    private func checkInCommand(
        _ request: CheckInRequest, principal: Principal, deviceDate: Date?
    ) async throws -> CheckInCommand {
        try InputRules.identifier("sessionKey", request.sessionKey)
        try InputRules.identifier("userId", request.userId, maxLength: InputRules.maxIdLength)
        if let siteId = request.siteId {
            try InputRules.identifier("siteId", siteId, maxLength: InputRules.maxIdLength)
        }
        if let reason = request.reason { try InputRules.text("reason", reason, maxLength: InputRules.maxReasonLength) }
        let user = UserID(request.userId)
        if case .device(_, let own) = principal, own != user {
            throw Problem(403, "Forbidden", "this device belongs to user '\(own)' and cannot check in user '\(user)'")
        }
        let at = try timestamp(request.ts, field: "ts")
        guard let source = EventSource(rawValue: request.source) else {
            throw Problem.field("source", request.source, expected: "automatic or manual")
        }
        if let evidence = request.evidence, !(0...1_000_000).contains(evidence.sampleCount) {
            throw Problem.field(
                "evidence.sampleCount", String(evidence.sampleCount), expected: "an integer from 0 to 1000000")
        }
        guard let uuid = UUID(uuidString: request.beacon.uuid) else {
            throw Problem.field("beacon.uuid", request.beacon.uuid, expected: "a UUID")
        }
        guard (0...65_535).contains(request.beacon.major) else {
            throw Problem.field("beacon.major", String(request.beacon.major), expected: "an integer from 0 to 65535")
        }
        let beacon = SiteBeacon(uuid: uuid, major: UInt16(request.beacon.major))
        let site: SiteRecord
        if let siteId = request.siteId {
            guard
                let known = try await directory.site(
                    id: SiteID(siteId), load: { try await repository.site(id: SiteID(siteId)) })
            else {
                throw Problem.field("siteId", siteId, expected: "the id of a configured site", status: 422)
            }
            site = known
        } else {
            guard
                let known = try await directory.site(
                    beacon: beacon, load: { try await repository.site(beacon: beacon) })
            else {
                throw Problem.field("beacon", "\(beacon)", expected: "the beacon UUID and major of a configured site", status: 422)
            }
            site = known
        }
        guard site.isActive else {
            throw Problem.field(request.siteId == nil ? "beacon" : "siteId", request.siteId ?? "\(beacon)",
                                expected: "an active site (site '\(site.id)' was deleted)", status: 422)
        }
        guard try await directory.employeeExists(user, load: {
            try await repository.employee(id: user)?.isActive == true
        }) else {
            let known = try await repository.employee(id: user) != nil
            throw Problem.field(
                "userId", user.rawValue,
                expected: known ? "an active employee (this one was deactivated)" : "the id of an employee",
                status: 422)
        }
        var deviceId: DeviceID?
        if case .device(let device, _) = principal { deviceId = device }
        // Receive time − the device's clock (its Date header, whole seconds).
        let skew = deviceDate.map { clock().timeIntervalSince($0).rounded() }
        let signal = request.evidence
        let evidence = SessionEvidence(
            checkInReason: request.reason, appVersion: request.deviceMeta.appVersion, rule: signal?.rule,
            sampleCount: signal?.sampleCount, medianRSSI: signal?.medianRSSI, stdevDB: signal?.stdevDB,
            walking: signal?.walking, clockSkewSeconds: skew)
        return CheckInCommand(sessionKey: SessionKey(request.sessionKey), userId: user, siteId: site.id, deviceId: deviceId,
                              at: at, source: source, reason: request.reason, evidence: evidence)
    }

    /// A check-out or heartbeat, validated, and its `ts` as sent (for the 422's detail).
    private func sessionEventCommand(_ endpoint: Endpoint, body: Data, principal: Principal, hash: inout String) throws -> (SessionEventCommand, String) {
        let kind: SessionEventCommand.Kind, sessionKey: String, ts: String, reason: String?, source: String
        if endpoint == .checkOut {
            let request = try decode(CheckOutRequest.self, body)
            hash = try Replies.contentHash(request)
            (kind, sessionKey, ts, reason, source) = (.checkOut, request.sessionKey, request.ts, request.reason, request.source)
        } else {
            let request = try decode(HeartbeatRequest.self, body)
            hash = try Replies.contentHash(request)
            (kind, sessionKey, ts, reason, source) = (.heartbeat, request.sessionKey, request.ts, nil, "automatic")
        }
        try InputRules.identifier("sessionKey", sessionKey)
        if let reason { try InputRules.text("reason", reason, maxLength: InputRules.maxReasonLength) }
        let at = try timestamp(ts, field: "ts")
        guard let eventSource = EventSource(rawValue: source) else {
            throw Problem.field("source", source, expected: "automatic or manual")
        }
        if kind == .checkOut, (reason ?? "").isEmpty {
            throw Problem.field("reason", reason, expected: "why the session ended, e.g. regionExit")
        }
        var user: UserID?
        var device: DeviceID?
        if case .device(let id, let own) = principal { user = own; device = id }
        let command = SessionEventCommand(kind: kind, sessionKey: SessionKey(sessionKey), deviceId: device, userId: user, at: at,
                                          reason: reason, source: eventSource)
        return (command, ts)
    }

    // MARK: - Validation

    private func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        do { return try JSONDecoder().decode(type, from: body) } catch {
            throw Problem(400, "Invalid request", "the body is not a valid \(type): \(Self.describe(error))")
        }
    }

    private func timestamp(_ text: String, field: String) throws -> Date {
        let at: Date
        do { at = try RFC3339.parse(text) } catch {
            throw Problem.field(field, text, expected: "an RFC 3339 time with an offset, e.g. 2026-11-22T09:00:00Z (\(error.reason))")
        }
        let now = clock()
        if at.timeIntervalSince(now) > limits.maxFutureSeconds {
            throw Problem.field(field, text, expected: "a time no later than \(Int(limits.maxFutureSeconds)) s after the server's clock (\(RFC3339.format(now)))", status: 422)
        }
        if now.timeIntervalSince(at) > limits.maxPastSeconds {
            throw Problem.field(field, text, expected: "a time within the last \(Int(limits.maxPastSeconds / 86_400)) days", status: 422)
        }
        return at
    }


    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "'\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))' is missing"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' should be \(type)"
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription
        default:
            return "\(error)"
        }
    }
}
