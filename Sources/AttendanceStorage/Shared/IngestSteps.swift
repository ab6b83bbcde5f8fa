import AttendanceModels
import AttendanceRules
import Foundation

/// What a session event's transaction reads before `SessionLedger` decides.
package struct SessionContext {
    package var claim: IdempotencyClaim
    package var session: SessionRecord?
    package var siteIsActive: Bool?
    package var employeeIsActive: Bool?
    package var pending: [SessionLedger.PendingEvent]
}

/// The two steps of a device event that each database may do its own fastest way: claiming the
/// key with the reads `SessionLedger` decides from, and writing the decision with its answer.
/// `PortableIngestSteps` does them in plain SQL on either database; PostgreSQL uses one prepared
/// statement for each (`PostgresIngestSteps`), since there every statement is a round trip.
package protocol IngestSteps: Sendable {
    /// Claims the slot's key and reads the key's earlier answer, the session, the site's and the
    /// employee's state (when given) and the session's pending events.
    func claimAndRead<Found>(
        _ tx: any SQLTransaction, _ slot: AnswerSlot<Found>, now: Date, sessionKey: SessionKey, site: SiteID?,
        user: UserID?
    ) async throws -> SessionContext

    /// The decision's ledger row, the pending events it absorbed, the key's answer and the session.
    func record(
        _ tx: any SQLTransaction, _ session: SessionRecord, createdAt: Date, row: LedgerEvent, absorbing: [Int64],
        answer: (scope: String, key: String, reply: StoredReply)
    ) async throws
}

package struct PortableIngestSteps: IngestSteps {
    package func claimAndRead<Found>(
        _ tx: any SQLTransaction, _ slot: AnswerSlot<Found>, now: Date, sessionKey: SessionKey, site: SiteID?,
        user: UserID?
    ) async throws -> SessionContext {
        let claim = try await Idempotency.claim(
            tx, scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now)
        guard claim == .claimed else { return SessionContext(claim: claim, pending: []) }
        let session = try await SessionWrites.session(tx, key: sessionKey)
        var context = SessionContext(claim: claim, session: session, pending: [])
        if let site, let user {
            let active = try await tx.query(
                """
                SELECT (SELECT deactivated_at IS NULL FROM sites WHERE id = \(site)),
                       (SELECT deactivated_at IS NULL FROM employees WHERE id = \(user))
                """
            ).first
            context.siteIsActive = try active?.decode(0)
            context.employeeIsActive = try active?.decode(1)
        }
        if session == nil { context.pending = try await Self.pendingEvents(tx, key: sessionKey) }
        return context
    }

    package func record(
        _ tx: any SQLTransaction, _ session: SessionRecord, createdAt: Date, row: LedgerEvent, absorbing: [Int64],
        answer: (scope: String, key: String, reply: StoredReply)
    ) async throws {
        try await tx.appendLedger(row)
        try await SessionWrites.write(tx, session, createdAt: createdAt)
        if !absorbing.isEmpty {
            let ids = SQL.joined(absorbing.map { "\($0)" }, separator: ", ")
            try await tx.execute("DELETE FROM pending_session_events WHERE id IN (\(ids))")
        }
        try await Idempotency.complete(tx, scope: answer.scope, key: answer.key, reply: answer.reply)
    }

    /// The events stored before this session's check-in, in arrival order.
    package static func pendingEvents(_ tx: any SQLTransaction, key: SessionKey) async throws -> [SessionLedger
        .PendingEvent]
    {
        try await tx.query(
            """
            SELECT id, kind, at, reason, user_id, source FROM pending_session_events
            WHERE session_key = \(key) ORDER BY id
            """
        ).map { row in
            let id: Int64 = try row[0]
            return SessionLedger.PendingEvent(
                id: id,
                kind: try StoredValue.decode(
                    try row[1] as String, as: SessionEventCommand.Kind.self, table: "pending_session_events",
                    row: "\(id)", column: "kind"),
                at: try row[2], reason: try row[3], userId: try row[4],
                source: try StoredValue.decode(
                    try row[5] as String?, as: EventSource.self, table: "pending_session_events", row: "\(id)",
                    column: "source"))
        }
    }
}

/// Idempotency keys: claimed, answered and replayed inside the transaction of their request.
package enum Idempotency {
    /// A new key is claimed; a claim an earlier release left unanswered past its lease is taken
    /// over; otherwise the key's earlier answer, a payload mismatch, or in flight. On PostgreSQL a
    /// concurrent transaction's uncommitted claim of the same key makes the insert wait for it.
    package static func claim(
        _ tx: any SQLTransaction, scope: String, key: String, requestHash: String, now: Date
    ) async throws -> IdempotencyClaim {
        let stale = now.addingTimeInterval(-IdempotencyLease.seconds)
        let claimed = try await tx.query(
            """
            INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at)
            VALUES (\(scope), \(key), \(requestHash), 'inFlight', \(now))
            ON CONFLICT (scope, key) DO UPDATE
                SET request_hash = excluded.request_hash, created_at = excluded.created_at
            WHERE idempotency_keys.state = 'inFlight' AND idempotency_keys.created_at < \(stale)
            RETURNING 1
            """)
        if !claimed.isEmpty { return .claimed }
        guard
            let row = try await tx.query(
                """
                SELECT request_hash, state, status, content_type, body FROM idempotency_keys
                WHERE scope = \(scope) AND key = \(key)
                """
            ).first
        else { return .claimed }
        return try earlier(row, requestHash: requestHash)
    }

    /// How a key used before stands, from its `request_hash, state, status, content_type, body`.
    package static func earlier(_ row: SQLRow, at first: Int = 0, requestHash: String) throws -> IdempotencyClaim {
        guard try row.decode(first, as: String.self) == requestHash else { return .payloadMismatch }
        guard try row.decode(first + 1, as: String.self) == "done",
            let status = try row.decode(first + 2, as: Int?.self),
            let contentType = try row.decode(first + 3, as: String?.self)
        else { return .inFlight }
        return .replay(
            StoredReply(
                status: status, contentType: contentType, body: try row.decode(first + 4, as: Data?.self) ?? Data()))
    }

    package static func complete(_ tx: any SQLTransaction, scope: String, key: String, reply: StoredReply) async throws
    {
        try await tx.execute(
            """
            UPDATE idempotency_keys SET state = 'done', status = \(reply.status), content_type = \(reply.contentType),
                body = \(reply.body)
            WHERE scope = \(scope) AND key = \(key)
            """)
    }

    /// Claim, write, render, store, inside the caller's transaction, for a write that is not a
    /// session's (a refusal, a batch's own key). A key used before writes nothing.
    package static func answer<Found: Sendable>(
        _ tx: any SQLTransaction, _ slot: AnswerSlot<Found>, now: Date, _ write: () async throws -> Found
    ) async throws -> SlotOutcome {
        let claim = try await claim(tx, scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now)
        guard claim == .claimed else { return .earlier(claim) }
        return try await answered(tx, slot, try await write())
    }

    /// `found` rendered as the slot's answer and stored under its claimed key.
    package static func answered<Found: Sendable>(
        _ tx: any SQLTransaction, _ slot: AnswerSlot<Found>, _ found: Found
    ) async throws -> SlotOutcome {
        let reply = try slot.render(found)
        try await complete(tx, scope: slot.scope, key: slot.key, reply: reply)
        return .answered(reply)
    }
}
