import AttendanceModels
import Foundation

/// An employee's request (from the app): correct one of their sessions, or add one the phone
/// missed. An admin approves it (the correction is applied at once, in the same transaction) or
/// rejects it with a comment; both decisions are ledger rows.
public struct CorrectionRequestRecord: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case correction, missingSession }
    public enum State: String, Hashable, Sendable, CaseIterable { case pending, approved, rejected }

    public var id: CorrectionRequestID
    public var userId: UserID
    public var kind: Kind
    public var state: State
    /// The session to correct; for an approved missing session, the one added.
    public var sessionKey: SessionKey?
    public var siteId: SiteID?
    public var checkInAt: Date?
    public var checkOutAt: Date?
    public var reason: String
    /// What the phone knew (motion-dated times, the last beacon heard), as sent.
    public var evidence: [String: String]
    public var createdAt: Date
    public var decidedAt: Date?
    public var decidedBy: LedgerActor?
    public var comment: String?

    public init(
        id: CorrectionRequestID, userId: UserID, kind: Kind, state: State = .pending, sessionKey: SessionKey?,
        siteId: SiteID?,
        checkInAt: Date?, checkOutAt: Date?, reason: String, evidence: [String: String], createdAt: Date,
        decidedAt: Date? = nil, decidedBy: LedgerActor? = nil, comment: String? = nil
    ) {
        self.id = id
        self.userId = userId
        self.kind = kind
        self.state = state
        self.sessionKey = sessionKey
        self.siteId = siteId
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.reason = reason
        self.evidence = evidence
        self.createdAt = createdAt
        self.decidedAt = decidedAt
        self.decidedBy = decidedBy
        self.comment = comment
    }

    /// The correction an approval applies (kind `correction`).
    public var correction: SessionCorrection {
        SessionCorrection(
            checkInAt: checkInAt, checkOutAt: checkOutAt, siteId: siteId, reason: "request \(id): \(reason)")
    }

    /// The session an approval adds (kind `missingSession`), under a key derived from the request.
    public var addedSession: AddedSession? {
        guard let siteId, let checkInAt else { return nil }
        return AddedSession(
            sessionKey: SessionKey("request-\(id)"), userId: userId, siteId: siteId, checkInAt: checkInAt,
            checkOutAt: checkOutAt, reason: "request \(id): \(reason)")
    }

    /// The ledger row that files it.
    public func filedEvent(actor: LedgerActor) -> LedgerEvent {
        let filed = LedgerRecord.RequestFiled(
            requestId: id, kind: kind, siteId: siteId, checkInAt: checkInAt, checkOutAt: checkOutAt, reason: reason,
            evidence: evidence)
        return LedgerEvent(
            .requestFiled(filed), sessionKey: sessionKey, userId: userId, actor: actor, receivedAt: createdAt)
    }

    /// The ledger row that decides it (after `decide`).
    public func decidedEvent() -> LedgerEvent {
        let decision = LedgerRecord.RequestDecision(requestId: id, comment: comment)
        return LedgerEvent(
            state == .approved ? .requestApproved(decision) : .requestRejected(decision), sessionKey: sessionKey,
            userId: userId, actor: decidedBy ?? .server, receivedAt: decidedAt ?? createdAt)
    }
}

/// What a decision on a request found.
public enum RequestDecisionOutcome: Hashable, Sendable {
    case decided(CorrectionRequestRecord)
    case notFound(CorrectionRequestID)
    /// Already approved or rejected: decisions are final.
    case alreadyDecided(CorrectionRequestRecord)
    /// The approval's correction could not be applied (the session was voided, the times cross…):
    /// nothing was written, the request stays pending.
    case correctionRefused(CorrectionOutcome)
}

public enum RequestRules {
    public enum Decision: Hashable, Sendable {
        /// Write the request as decided, with the change an approval applies (nil for a rejection).
        case decide(CorrectionRequestRecord, applying: Change?)
        /// Nothing to write; this is the answer.
        case answer(RequestDecisionOutcome)
    }

    /// What an approval does to the sessions.
    public enum Change: Hashable, Sendable {
        case correct(SessionKey, SessionCorrection)
        case add(AddedSession)
    }

    /// What a decision does to a pending request: the decided request, or why it can't be decided.
    public static func decide(
        _ request: CorrectionRequestRecord?, id: CorrectionRequestID, approve: Bool, comment: String?,
        actor: LedgerActor,
        now: Date
    ) -> Decision {
        guard var request else { return .answer(.notFound(id)) }
        guard request.state == .pending else { return .answer(.alreadyDecided(request)) }
        request.state = approve ? .approved : .rejected
        request.decidedAt = now
        request.decidedBy = actor
        request.comment = comment
        guard approve else { return .decide(request, applying: nil) }
        if request.kind == .correction, let key = request.sessionKey {
            return .decide(request, applying: .correct(key, request.correction))
        }
        guard let added = request.addedSession else {
            return .answer(
                .correctionRefused(
                    .invalid(
                        field: "request", value: id.rawValue, expected: "a request with a site and a check-in")))
        }
        return .decide(request, applying: .add(added))
    }
}
