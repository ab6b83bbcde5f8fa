import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

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

    public init(
        maxBodyBytes: Int = 1 << 20, maxBatchItems: Int = 500, maxFutureSeconds: Double = 300,
        maxPastSeconds: Double = 30 * 86_400, idempotencyRetentionSeconds: Double = 30 * 86_400
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxBatchItems = maxBatchItems
        self.maxFutureSeconds = maxFutureSeconds
        self.maxPastSeconds = maxPastSeconds
        self.idempotencyRetentionSeconds = idempotencyRetentionSeconds
    }
}

/// Exactly-once ingest of check-ins, check-outs and heartbeats (docs/SERVER.md), independent of HTTP:
/// it takes typed requests (`DeviceRequest`, from the contract's mapping) and answers each with a
/// `StoredReply` rendered once by `answers`, so a replay is the same bytes by construction.
public struct IngestService: Sendable {
    public let repository: any AttendanceRepository
    public let limits: IngestLimits
    private let answers: any IngestAnswers
    private let environment: ServerEnvironment
    private let directory: DirectoryCache
    /// Told about each session a committed request changed (the console's live presence).
    private let observer: (any SessionObserver)?

    /// `watch`: what lets sites and employees be cached (nil: every check-in reads them).
    public init(
        repository: any AttendanceRepository, answers: any IngestAnswers, limits: IngestLimits = IngestLimits(),
        observer: (any SessionObserver)? = nil, watch: DirectoryWatch? = nil,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.answers = answers
        self.limits = limits
        self.observer = observer
        self.directory = DirectoryCache(watch: watch)
        self.environment = environment
    }

    /// `POST /v1/attendance/{check-in, check-out, heartbeat}`.
    public func handle(
        _ request: DeviceRequest, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let key: String
        switch checkedKey(idempotencyKey, expected: InputRules.identifierExpectation + ", unique per event") {
        case .failure(let problem): return answers.refusal(problem)
        case .success(let checked): key = checked
        }
        let outcome: SlotOutcome
        let changed = ChangedSessions()
        switch try await prepare(request, key: key, principal: principal, deviceDate: deviceDate, changed: changed) {
        case .checkIn(let command, let slot):
            outcome = try await repository.checkIn(command, now: environment.now(), answering: slot)
        case .apply(let command, let slot):
            outcome = try await repository.apply(command, now: environment.now(), answering: slot)
        case .refusal(let slot):
            outcome = try await repository.storeAnswer(now: environment.now(), answering: slot)
        case .unkeyed(let reply): return reply
        }
        if case .answered = outcome { changed.publish(to: observer) }
        return reply(to: outcome, key: key)
    }

    /// `POST /v1/attendance/events`: each item as its single endpoint would answer, in order. The
    /// batch's key, every item and the batch's answer commit in one transaction: a crash leaves
    /// all of it or none of it, and the resend with the same key is processed (or replayed) once.
    public func handleBatch(
        _ batch: DeviceBatch, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let key: String
        switch checkedKey(idempotencyKey, expected: InputRules.identifierExpectation) {
        case .failure(let problem): return answers.refusal(problem)
        case .success(let checked): key = checked
        }
        guard batch.items.count <= limits.maxBatchItems else {
            return answers.refusal(
                DomainError(
                    .tooLarge, "Batch too large",
                    "the batch has \(batch.items.count) events; the limit is \(limits.maxBatchItems)"))
        }
        var items: [BatchWrite] = []
        items.reserveCapacity(batch.items.count)
        let changed = ChangedSessions()
        for (index, item) in batch.items.enumerated() {
            switch item {
            case .refused(_, let problem): items.append(.unkeyed(answers.refusal(problem)))
            case .request(let itemKey, let request):
                let field = "events[\(index)].idempotencyKey"
                if case .failure(let problem) = checkedKey(
                    itemKey, field: field, expected: InputRules.identifierExpectation)
                {
                    items.append(.unkeyed(answers.refusal(problem)))
                    continue
                }
                items.append(
                    try await prepare(
                        request, key: itemKey, principal: principal, deviceDate: deviceDate, changed: changed))
            }
        }
        let keys = batch.items.map(\.idempotencyKey)
        let slot = AnswerSlot<[SlotOutcome]>(scope: principal.scope, key: key, requestHash: batch.identity) {
            [answers] outcomes in
            try answers.batch(
                zip(keys, outcomes).map { itemKey, outcome in
                    (itemKey, Self.reply(to: outcome, key: itemKey, answers: answers))
                })
        }
        let outcome = try await repository.ingestBatch(items, now: environment.now(), answering: slot)
        if case .answered = outcome { changed.publish(to: observer) }
        return reply(to: outcome, key: key)
    }

    /// The key's checks before anything is stored (400).
    private func checkedKey(
        _ idempotencyKey: String?, field: String = "Idempotency-Key", expected: String
    ) -> Result<String, DomainError> {
        guard let key = idempotencyKey else {
            return .failure(DomainError.field(field, nil, expected: expected))
        }
        do { try InputRules.identifier(field, key) } catch let problem as DomainError {
            return .failure(problem)
        } catch {
            return .failure(DomainError.field(field, key, expected: expected))
        }
        return .success(key)
    }

    // MARK: - Processing

    /// Validates a request and looks up its site and employee (reads only): the write it asks
    /// for, with the slot its answer goes to, or the refusal to store under its key. Throws only
    /// the server's own failures (a lookup that failed), which are never stored. A request is one
    /// transaction: the key's claim, the session write and the answer commit together; a key used
    /// before gets its replay, 422 or 409.
    private func prepare(
        _ request: DeviceRequest, key: String, principal: Principal, deviceDate: Date?, changed: ChangedSessions
    ) async throws -> BatchWrite {
        let scope = principal.scope
        let answers = answers
        do {
            switch request.event {
            case .checkIn(let checkIn):
                let command = try await checkInCommand(checkIn, principal: principal, deviceDate: deviceDate)
                return .checkIn(
                    command,
                    AnswerSlot(scope: scope, key: key, requestHash: request.identity) { found in
                        if case .recorded(let session, _) = found, session.userId == command.userId {
                            changed.add(session)
                        }
                        return try Self.reply(to: found, command: command, answers: answers)
                    })
            case .checkOut(let event), .heartbeat(let event):
                let kind: SessionEventCommand.Kind
                if case .checkOut = request.event { kind = .checkOut } else { kind = .heartbeat }
                let command = try sessionEventCommand(kind, event, principal: principal)
                return .apply(
                    command,
                    AnswerSlot(scope: scope, key: key, requestHash: request.identity) { found in
                        if case .applied(let session) = found { changed.add(session) }
                        return try Self.reply(to: found, command: command, answers: answers)
                    })
            }
        } catch let problem as DomainError {
            let reply = answers.refusal(problem)
            return .refusal(AnswerSlot(scope: scope, key: key, requestHash: request.identity) { reply })
        }
    }

    private func reply(to outcome: SlotOutcome, key: String) -> StoredReply {
        Self.reply(to: outcome, key: key, answers: answers)
    }

    private static func reply(to outcome: SlotOutcome, key: String, answers: any IngestAnswers) -> StoredReply {
        switch outcome {
        case .answered(let reply): reply
        case .earlier(let claim): reply(to: claim, key: key, answers: answers)
        }
    }

    private static func reply(
        to found: CheckInOutcome, command: CheckInCommand, answers: any IngestAnswers
    ) throws -> StoredReply {
        switch found {
        case .recorded(let session, let created):
            guard session.userId == command.userId else {
                return answers.refusal(
                    DomainError(.forbidden, "Forbidden", "the session '\(command.sessionKey)' belongs to another user"))
            }
            return try answers.session(session, created: created)
        case .employeeInactive(let user):
            return answers.refusal(
                DomainError.field(
                    "userId", user.rawValue, expected: "an active employee (this one was deactivated)",
                    kind: .unprocessable))
        case .siteInactive(let site):
            return answers.refusal(
                DomainError.field(
                    "siteId", site.rawValue, expected: "an active site (this one was deleted)", kind: .unprocessable))
        }
    }

    private static func reply(to claim: IdempotencyClaim, key: String, answers: any IngestAnswers) -> StoredReply {
        switch claim {
        case .replay(let reply): return reply
        case .payloadMismatch:
            return answers.refusal(
                DomainError(
                    .unprocessable, "Idempotency key reused",
                    "the Idempotency-Key '\(key)' was already used with a different payload"))
        case .inFlight, .claimed:
            return answers.refusal(
                DomainError(
                    .conflict, "Request in progress",
                    "a request with the Idempotency-Key '\(key)' is still being processed; retry later"))
        }
    }

    private static func reply(
        to found: SessionEventOutcome, command: SessionEventCommand, answers: any IngestAnswers
    ) throws -> StoredReply {
        switch found {
        case .applied(let session): return try answers.session(session, created: false)
        case .pending: return try answers.pending(sessionKey: command.sessionKey)
        case .forbidden:
            return answers.refusal(
                DomainError(.forbidden, "Forbidden", "the session '\(command.sessionKey)' belongs to another user"))
        case .checkOutBeforeCheckIn(let checkInAt):
            return answers.refusal(
                DomainError.field(
                    "ts", RFC3339.format(command.at),
                    expected: "a time at or after the session's check-in (\(RFC3339.format(checkInAt)))",
                    kind: .unprocessable))
        }
    }

    private func checkInCommand(
        _ request: DeviceRequest.CheckIn, principal: Principal, deviceDate: Date?
    ) async throws -> CheckInCommand {
        try InputRules.identifier("sessionKey", request.sessionKey)
        try InputRules.identifier("userId", request.userId, maxLength: InputRules.maxIdLength)
        if let siteId = request.siteId {
            try InputRules.identifier("siteId", siteId, maxLength: InputRules.maxIdLength)
        }
        if let reason = request.reason { try InputRules.text("reason", reason, maxLength: InputRules.maxReasonLength) }
        let user = UserID(request.userId)
        if case .device(_, let own) = principal, own != user {
            throw DomainError(
                .forbidden, "Forbidden", "this device belongs to user '\(own)' and cannot check in user '\(user)'")
        }
        try checkWindow(request.at, field: "ts")
        if let evidence = request.evidence, !(0...1_000_000).contains(evidence.sampleCount) {
            throw DomainError.field(
                "evidence.sampleCount", String(evidence.sampleCount), expected: "an integer from 0 to 1000000")
        }
        guard let uuid = UUID(uuidString: request.beaconUUID) else {
            throw DomainError.field("beacon.uuid", request.beaconUUID, expected: "a UUID")
        }
        guard (0...65_535).contains(request.beaconMajor) else {
            throw DomainError.field("beacon.major", String(request.beaconMajor), expected: "an integer from 0 to 65535")
        }
        let beacon = SiteBeacon(uuid: uuid, major: UInt16(request.beaconMajor))
        let site: SiteRecord
        if let siteId = request.siteId {
            guard
                let known = try await directory.site(
                    id: SiteID(siteId), load: { try await repository.site(id: SiteID(siteId)) })
            else {
                throw DomainError.field("siteId", siteId, expected: "the id of a configured site", kind: .unprocessable)
            }
            site = known
        } else {
            guard
                let known = try await directory.site(
                    beacon: beacon, load: { try await repository.site(beacon: beacon) })
            else {
                throw DomainError.field(
                    "beacon", "\(beacon)", expected: "the beacon UUID and major of a configured site",
                    kind: .unprocessable)
            }
            site = known
        }
        guard site.isActive else {
            throw DomainError.field(
                request.siteId == nil ? "beacon" : "siteId", request.siteId ?? "\(beacon)",
                expected: "an active site (site '\(site.id)' was deleted)", kind: .unprocessable)
        }
        guard
            try await directory.employeeExists(
                user,
                load: {
                    try await repository.employee(id: user)?.isActive == true
                })
        else {
            let known = try await repository.employee(id: user) != nil
            throw DomainError.field(
                "userId", user.rawValue,
                expected: known ? "an active employee (this one was deactivated)" : "the id of an employee",
                kind: .unprocessable)
        }
        var deviceId: DeviceID?
        if case .device(let device, _) = principal { deviceId = device }
        // Receive time − the device's clock (its Date header, whole seconds).
        let skew = deviceDate.map { environment.now().timeIntervalSince($0).rounded() }
        let signal = request.evidence
        let evidence = SessionEvidence(
            checkInReason: request.reason, appVersion: request.appVersion, rule: signal?.rule,
            sampleCount: signal?.sampleCount, medianRSSI: signal?.medianRSSI, stdevDB: signal?.stdevDB,
            walking: signal?.walking, clockSkewSeconds: skew)
        return CheckInCommand(
            sessionKey: SessionKey(request.sessionKey), userId: user, siteId: site.id, deviceId: deviceId,
            at: request.at, source: request.source, reason: request.reason, evidence: evidence)
    }

    /// A check-out or heartbeat, validated.
    private func sessionEventCommand(
        _ kind: SessionEventCommand.Kind, _ event: DeviceRequest.SessionEvent, principal: Principal
    ) throws -> SessionEventCommand {
        try InputRules.identifier("sessionKey", event.sessionKey)
        if let reason = event.reason { try InputRules.text("reason", reason, maxLength: InputRules.maxReasonLength) }
        try checkWindow(event.at, field: "ts")
        if kind == .checkOut, (event.reason ?? "").isEmpty {
            throw DomainError.field("reason", event.reason, expected: "why the session ended, e.g. regionExit")
        }
        var user: UserID?
        var device: DeviceID?
        if case .device(let id, let own) = principal {
            user = own
            device = id
        }
        var command = SessionEventCommand(
            kind: kind, sessionKey: SessionKey(event.sessionKey), deviceId: device, userId: user, at: event.at,
            reason: event.reason, source: event.source)
        command.mayRepeatRecorded =
            event.at < environment.now().addingTimeInterval(-limits.idempotencyRetentionSeconds)
        return command
    }

    // MARK: - Validation

    /// Refuses a time too far ahead of the server's clock (skew) or older than a phone is offline.
    private func checkWindow(_ at: Date, field: String) throws {
        let now = environment.now()
        let text = RFC3339.format(at)
        if at.timeIntervalSince(now) > limits.maxFutureSeconds {
            throw DomainError.field(
                field, text,
                expected: "a time no later than \(Int(limits.maxFutureSeconds)) s after the server's clock "
                    + "(\(RFC3339.format(now)))",
                kind: .unprocessable)
        }
        if now.timeIntervalSince(at) > limits.maxPastSeconds {
            throw DomainError.field(
                field, text, expected: "a time within the last \(Int(limits.maxPastSeconds / 86_400)) days",
                kind: .unprocessable
            )
        }
    }
}
