import AttendanceModels
import AttendanceRules
import Foundation

/// The writes of a session and of the events waiting for one, and the changes people make, inside
/// a caller's transaction (which holds the session's lock on PostgreSQL).
package enum SessionWrites {
    package static func session(_ tx: any SQLTransaction, key: SessionKey) async throws -> SessionRecord? {
        try await SessionRows.sessions(
            tx, "SELECT \(raw: SessionRows.columns) FROM sessions WHERE session_key = \(key)"
        ).first
    }

    /// The session's row as it is now, inserted or replaced (its `created_at` kept when it exists).
    package static func write(_ tx: any SQLTransaction, _ session: SessionRecord, createdAt: Date) async throws {
        let evidence = session.evidence
        try await tx.execute(
            """
            INSERT INTO sessions (\(raw: SessionRows.writeNames.joined(separator: ", ")))
            VALUES (\(session.sessionKey), \(session.userId), \(session.siteId), \(session.deviceId),
                    \(session.checkInAt), \(session.checkOutAt), \(session.checkOutReason), \(session.lastSeenAt),
                    \(session.source.rawValue), \(createdAt), \(evidence.checkInReason),
                    \(evidence.checkOutSource?.rawValue), \(evidence.appVersion), \(evidence.rule),
                    \(evidence.sampleCount), \(evidence.medianRSSI), \(evidence.stdevDB), \(evidence.walking),
                    \(evidence.clockSkewSeconds), \(session.corrected), \(session.voidedAt), \(session.voidReason))
            ON CONFLICT (session_key) DO UPDATE SET \(raw: SessionRows.upsertSet)
            """)
    }

    /// A check-out or heartbeat kept without its session, under its ledger row's id.
    package static func insertPending(
        _ tx: any SQLTransaction, id: Int64, key: SessionKey, kind: SessionEventCommand.Kind, at: Date,
        reason: String?, userId: UserID?, receivedAt: Date, source: EventSource?
    ) async throws {
        try await tx.execute(
            """
            INSERT INTO pending_session_events (id, session_key, kind, at, reason, user_id, received_at, source)
            VALUES (\(id), \(key), \(kind.rawValue), \(at), \(reason), \(userId), \(receivedAt), \(source?.rawValue))
            """)
    }

    package static func correct(
        _ tx: any SQLTransaction, _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor,
        requestId: CorrectionRequestID?, now: Date
    ) async throws -> CorrectionOutcome {
        let session = try await session(tx, key: key)
        return try await write(tx, SessionLedger.correct(correction, of: session, key: key)) { next, changes in
            LedgerEvent.change(
                .corrected, of: next, correction: correction, reason: correction.reason, changes: changes,
                requestId: requestId, actor: actor, now: now)
        }
    }

    package static func add(
        _ tx: any SQLTransaction, _ added: AddedSession, actor: LedgerActor, requestId: CorrectionRequestID?, now: Date
    ) async throws -> CorrectionOutcome {
        let existing = try await session(tx, key: added.sessionKey)
        return try await write(tx, SessionLedger.add(added, existing: existing)) { next, changes in
            LedgerEvent.change(
                .added, of: next, reason: added.reason, changes: changes, requestId: requestId, actor: actor,
                now: now)
        }
    }

    package static func void(
        _ tx: any SQLTransaction, _ key: SessionKey, reason: String, actor: LedgerActor, now: Date
    ) async throws -> CorrectionOutcome {
        let session = try await session(tx, key: key)
        return try await write(tx, SessionLedger.void(session, key: key, reason: reason, at: now)) { next, changes in
            LedgerEvent.change(.voided, of: next, reason: reason, changes: changes, actor: actor, now: now)
        }
    }

    /// A change's decision written: its ledger row, then the session.
    private static func write(
        _ tx: any SQLTransaction, _ decision: SessionLedger.ChangeDecision,
        event: (SessionRecord, [String: LedgerChange]) -> LedgerEvent
    ) async throws -> CorrectionOutcome {
        switch decision {
        case .answer(let outcome):
            return outcome
        case .write(let session, let changes):
            let row = event(session, changes)
            try await tx.appendLedger(row)
            try await write(tx, session, createdAt: row.receivedAt)
            return .applied(session)
        }
    }
}
