import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `CorrectionService` reads and writes: the repository protocols it needs, no more.
public typealias CorrectionServiceStorage = AttendanceRepository & LedgerRepository

/// Corrections, added sessions and voids, validated: every refusal is a `Problem` naming the
/// field, the value and what was expected. The rules are `SessionLedger`'s; the repository writes
/// the session and its ledger row in one transaction.
public struct CorrectionService: Sendable {
    public let repository: any CorrectionServiceStorage
    private let environment: ServerEnvironment
    /// A correction may not record a time later than now + this (it hasn't happened yet).
    static let futureAllowanceSeconds: Double = 300

    /// Told about each session a correction, an addition or a void changed.
    private let observer: (any SessionObserver)?

    public init(
        repository: any CorrectionServiceStorage, observer: (any SessionObserver)? = nil,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.observer = observer
        self.environment = environment
    }

    private func changed(_ session: SessionRecord) -> SessionRecord {
        observer?.sessionsChanged([session])
        return session
    }

    public func correct(
        _ key: SessionKey, checkInAt: Date?, checkOutAt: Date?, siteId: SiteID?, reason: String, actor: LedgerActor
    ) async throws -> SessionRecord {
        try InputRules.identifier("sessionKey", key.rawValue)
        let reason = try validatedReason(reason)
        try notInTheFuture("checkInAt", checkInAt)
        try notInTheFuture("checkOutAt", checkOutAt)
        if let siteId { try await existingSite(siteId) }
        guard checkInAt != nil || checkOutAt != nil || siteId != nil else {
            throw DomainError.field(
                "body", "no change", expected: "at least one of checkInAt, checkOutAt or siteId", kind: .unprocessable)
        }
        let correction = SessionCorrection(checkInAt: checkInAt, checkOutAt: checkOutAt, siteId: siteId, reason: reason)
        let before = siteId == nil ? nil : try await repository.session(key: key)
        let after = try Self.session(
            try await repository.correctSession(key, correction, actor: actor, requestId: nil, now: environment.now()))
        if var moved = before, moved.siteId != after.siteId {
            // Moved to another site: the old site's pages drop the row first.
            moved.voidedAt = environment.now()
            observer?.sessionsChanged([moved, after])
            return after
        }
        return changed(after)
    }

    /// `formKey`: the one-time key of the form that asked (the console's): a second submit of the
    /// same form answers with the session the first one added instead of adding another.
    public func add(
        userId: UserID, siteId: SiteID, checkInAt: Date, checkOutAt: Date?, reason: String, actor: LedgerActor,
        formKey: String? = nil, idempotencyKey: String? = nil
    ) async throws -> SessionRecord {
        var key: SessionKey = environment.newId("added-", length: 16)
        // A retry (the same key from the same caller, or the same form) finds the session the first
        // one added.
        var once: SessionKey?
        if let retried = try RetryKey.id("added-", idempotencyKey, actor: actor, length: 32) {
            once = SessionKey(retried)
        } else if let formKey {
            try InputRules.identifier("formKey", formKey, maxLength: 64)
            once = SessionKey("added-" + formKey)
        }
        if let once {
            key = once
            if let earlier = try await repository.session(key: key) {
                // Its times or site may have been corrected since; the person can't have changed.
                guard earlier.userId == userId else {
                    throw DomainError(
                        .conflict, "Already used",
                        (idempotencyKey == nil ? "this form" : "this Idempotency-Key")
                            + " already added a session for someone else")
                }
                return earlier
            }
        }
        let reason = try validatedReason(reason)
        try notInTheFuture("checkInAt", checkInAt)
        try notInTheFuture("checkOutAt", checkOutAt)
        try await existingSite(siteId)
        guard try await repository.employee(id: userId) != nil else {
            throw DomainError.field("userId", userId.rawValue, expected: "the id of an employee", kind: .unprocessable)
        }
        let added = AddedSession(
            sessionKey: key, userId: userId, siteId: siteId, checkInAt: checkInAt, checkOutAt: checkOutAt,
            reason: reason)
        return changed(
            try Self.session(
                try await repository.addSession(added, actor: actor, requestId: nil, now: environment.now())))
    }

    public func void(_ key: SessionKey, reason: String, actor: LedgerActor) async throws -> SessionRecord {
        try InputRules.identifier("sessionKey", key.rawValue)
        let reason = try validatedReason(reason)
        return changed(
            try Self.session(
                try await repository.voidSession(key, reason: reason, actor: actor, now: environment.now())))
    }

    /// The session, refused (403) when its site is outside `scope` (a manager's other sites).
    public func session(_ key: SessionKey, scope: SiteScope = .all) async throws -> SessionRecord {
        try InputRules.identifier("sessionKey", key.rawValue)
        guard let session = try await repository.session(key: key) else { throw Self.notFound(key) }
        try SiteScope.require(session.siteId, in: scope)
        return session
    }

    /// The session now and every ledger row about it, oldest first.
    public func history(_ key: SessionKey, scope: SiteScope = .all) async throws
        -> (session: SessionRecord, entries: [LedgerEvent])
    {
        let session = try await session(key, scope: scope)
        var entries: [LedgerEvent] = []
        var before: Int64?
        repeat {
            let page = try await repository.ledgerEvents(LedgerFilter(sessionKey: key), before: before, limit: 500)
            entries += page
            before = page.count == 500 ? page.last?.id : nil
        } while before != nil
        return (session, entries.reversed())
    }

    /// A correction's outcome as the session, or the refusal.
    static func session(_ outcome: CorrectionOutcome) throws -> SessionRecord {
        switch outcome {
        case .applied(let session): return session
        case .notFound(let key): throw notFound(key)
        case .voided(let key):
            throw DomainError(
                .conflict, "Conflict", "the session '\(key)' was voided; a voided session takes no more changes")
        case .exists(let key): throw DomainError(.conflict, "Conflict", "a session with key '\(key)' already exists")
        case .invalid(let field, let value, let expected):
            throw DomainError.field(field, value, expected: expected, kind: .unprocessable)
        }
    }

    static func notFound(_ key: SessionKey) -> DomainError {
        DomainError(.notFound, "Not found", "no session with key '\(key)'")
    }

    private func validatedReason(_ reason: String) throws -> String {
        try InputRules.text("reason", reason, maxLength: InputRules.maxReasonLength, allowEmpty: false)
        return reason
    }

    private func notInTheFuture(_ field: String, _ time: Date?) throws {
        guard let time else { return }
        let now = environment.now()
        guard time.timeIntervalSince(now) <= Self.futureAllowanceSeconds else {
            throw DomainError.field(
                field, RFC3339.format(time), expected: "a time that has happened (now is \(RFC3339.format(now)))",
                kind: .unprocessable)
        }
    }

    private func existingSite(_ id: SiteID) async throws {
        try InputRules.identifier("siteId", id.rawValue, maxLength: InputRules.maxIdLength)
        guard try await repository.site(id: id) != nil else {
            throw DomainError.field("siteId", id.rawValue, expected: "the id of a site", kind: .unprocessable)
        }
    }
}
