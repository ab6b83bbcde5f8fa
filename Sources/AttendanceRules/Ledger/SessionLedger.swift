import AttendanceModels
import Foundation

/// The session rules, written once: what a check-in, a check-out or a heartbeat does to what is
/// stored. Pure and platform-free; both repositories read what a rule needs, ask the ledger, and
/// write what it decided, in the request's transaction (under the session's lock on PostgreSQL,
/// SQLite's single writer otherwise).
public enum SessionLedger {
    /// A check-out or heartbeat stored before its session's check-in, in arrival order (`id`).
    public struct PendingEvent: Hashable, Sendable {
        public var id: Int64
        public var kind: SessionEventCommand.Kind
        public var at: Date
        public var reason: String?
        /// The sender's user (nil: sent with the admin token).
        public var userId: UserID?
        /// Automatic or manual (nil: stored before the source was kept).
        public var source: EventSource?

        public init(
            id: Int64, kind: SessionEventCommand.Kind, at: Date, reason: String?, userId: UserID?,
            source: EventSource? = nil
        ) {
            self.id = id
            self.kind = kind
            self.at = at
            self.reason = reason
            self.userId = userId
            self.source = source
        }
    }

    /// What a check-in does.
    public enum CheckInDecision: Hashable, Sendable {
        /// Nothing to write; this is the answer: the known session (natural idempotency on
        /// `sessionKey`), a deleted site, or a deactivated employee.
        case answer(CheckInOutcome)
        /// A new session, with what arrived before it applied: insert `session`, delete the
        /// pending events in `applied`. The others stay, for audit: another user's (never applied
        /// to a session it doesn't own) and check-outs earlier than the check-in.
        case record(SessionRecord, applied: [Int64])
    }

    /// What a check-out or heartbeat does.
    public enum EventDecision: Hashable, Sendable {
        /// No session yet: store the event, bound to its sender, until the check-in arrives.
        case storePending
        /// Nothing to write; this is the answer: the session belongs to another user (403), or a
        /// check-out is earlier than the open session's check-in (422).
        case answer(SessionEventOutcome)
        /// The session as it is after the event (unchanged when a check-out came after the first, or
        /// the session was voided).
        case update(SessionRecord)
    }

    public static func checkIn(
        _ command: CheckInCommand, known: SessionRecord?, siteIsActive: Bool, employeeIsActive: Bool = true,
        pending: [PendingEvent], now: Date
    ) -> CheckInDecision {
        if let known { return .answer(.recorded(known, created: false)) }
        guard siteIsActive else { return .answer(.siteInactive(command.siteId)) }
        guard employeeIsActive else { return .answer(.employeeInactive(command.userId)) }
        var session = SessionRecord(
            sessionKey: command.sessionKey, userId: command.userId, siteId: command.siteId,
            deviceId: command.deviceId, checkInAt: command.at, checkOutAt: nil, checkOutReason: nil,
            lastSeenAt: command.at, source: command.source, evidence: command.evidence)
        var applied: [Int64] = []
        for event in pending.sorted(by: { $0.id < $1.id }) {
            if let sender = event.userId, sender != command.userId { continue }
            if event.kind == .checkOut, event.at < command.at { continue }
            session = applying(event.kind, at: event.at, reason: event.reason, source: event.source, to: session)
            applied.append(event.id)
        }
        return .record(session, applied: applied)
    }

    public static func apply(_ command: SessionEventCommand, to existing: SessionRecord?) -> EventDecision {
        guard let existing else { return .storePending }
        if let sender = command.userId, sender != existing.userId { return .answer(.forbidden(owner: existing.userId)) }
        // A voided session takes no more changes; the event is still recorded in the ledger.
        guard existing.voidedAt == nil else { return .update(existing) }
        if command.kind == .checkOut, existing.checkOutAt == nil, command.at < existing.checkInAt {
            return .answer(.checkOutBeforeCheckIn(checkInAt: existing.checkInAt))
        }
        return .update(
            applying(command.kind, at: command.at, reason: command.reason, source: command.source, to: existing))
    }

    /// One event on a session: the first check-out wins, and only at or after the check-in (its
    /// source is kept); a heartbeat moves `lastSeenAt` forward only.
    package static func applying(
        _ kind: SessionEventCommand.Kind, at: Date, reason: String?, source: EventSource?,
        to session: SessionRecord
    ) -> SessionRecord {
        var next = session
        switch kind {
        case .checkOut:
            guard session.checkOutAt == nil, session.checkInAt <= at else { return session }
            next.checkOutAt = at
            next.checkOutReason = reason
            next.evidence.checkOutSource = source
            next.lastSeenAt = max(session.lastSeenAt, at)
        case .heartbeat:
            next.lastSeenAt = max(session.lastSeenAt, at)
        }
        return next
    }
}
