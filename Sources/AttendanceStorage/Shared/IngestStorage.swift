import AttendanceModels
import AttendanceRules
import Foundation

// A device's check-ins, check-outs, heartbeats and batches: each one transaction with its
// idempotency key's claim and answer, under the session's lock on PostgreSQL, committed in a
// group on SQLite.
extension SQLStorage {
    public func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome {
        // The ledger row (payload and hash) is made before the transaction, which only runs SQL.
        let row = LedgerEvent.checkIn(command, now: now)
        let steps = ingestSteps
        return try await database.deviceWrite(locking: [command.sessionKey.rawValue]) { tx in
            try await Ingest.checkIn(tx, steps, command, row: row, now: now, slot: slot)
        }
    }

    public func apply(
        _ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>
    ) async throws -> SlotOutcome {
        let row = LedgerEvent.sessionEvent(command, now: now)
        let steps = ingestSteps
        return try await database.deviceWrite(locking: [command.sessionKey.rawValue]) { tx in
            try await Ingest.apply(tx, steps, command, row: row, now: now, slot: slot)
        }
    }

    public func storeAnswer(now: Date, answering slot: AnswerSlot<Void>) async throws -> SlotOutcome {
        try await database.deviceWrite(locking: []) { tx in try await Idempotency.answer(tx, slot, now: now) {} }
    }

    public func ingestBatch(
        _ items: [BatchWrite], now: Date, answering slot: AnswerSlot<[SlotOutcome]>
    ) async throws -> SlotOutcome {
        let rows = items.map { $0.ledgerRow(now: now) }
        let steps = ingestSteps
        return try await database.deviceWrite(locking: items.compactMap(\.sessionKey?.rawValue)) { tx in
            try await Idempotency.answer(tx, slot, now: now) {
                var outcomes: [SlotOutcome] = []
                outcomes.reserveCapacity(items.count)
                for (item, row) in zip(items, rows) {
                    outcomes.append(try await Ingest.write(tx, steps, item, row: row, now: now))
                }
                return outcomes
            }
        }
    }

    public func purgeIdempotency(olderThan cutoff: Date) async throws -> Int {
        try await database.write { tx in
            // The console's sent forms are kept as long (a form sent again within that time makes
            // nothing) and purged with them; only the keys are counted.
            try await tx.execute("DELETE FROM console_forms WHERE sent_at < \(cutoff)")
            // Failed sign-ins older than that no longer count (`SignInThrottle.Policy.forgetAfter`
            // is an hour): their rows go too.
            try await tx.execute("DELETE FROM sign_in_failures WHERE last_failure < \(cutoff)")
            return try await tx.execute("DELETE FROM idempotency_keys WHERE created_at < \(cutoff)")
        }
    }

    public func session(key: SessionKey) async throws -> SessionRecord? {
        try await database.read { tx in try await SessionWrites.session(tx, key: key) }
    }

    public func pendingEventCount(sessionKey: SessionKey?) async throws -> Int {
        try await database.read { tx in
            guard let sessionKey else {
                return try await tx.value("SELECT COUNT(*) FROM pending_session_events", as: Int.self) ?? 0
            }
            return try await tx.value(
                "SELECT COUNT(*) FROM pending_session_events WHERE session_key = \(sessionKey)", as: Int.self) ?? 0
        }
    }

    public func openSessions(siteId: SiteID?) async throws -> [SessionRecord] {
        let site: SQL = siteId.map { " AND site_id = \($0)" } ?? ""
        return try await database.read { tx in
            try await SessionRows.sessions(
                tx,
                """
                SELECT \(raw: SessionRows.columns) FROM sessions WHERE check_out_at IS NULL AND voided_at IS NULL\(site)
                ORDER BY check_in_at
                """)
        }
    }
}

package enum Ingest {
    package static func write(
        _ tx: any SQLTransaction, _ steps: any IngestSteps, _ item: BatchWrite, row: LedgerEvent?, now: Date
    ) async throws -> SlotOutcome {
        switch item {
        case .checkIn(let command, let slot):
            try await checkIn(
                tx, steps, command, row: row ?? LedgerEvent.checkIn(command, now: now), now: now, slot: slot)
        case .apply(let command, let slot):
            try await apply(
                tx, steps, command, row: row ?? LedgerEvent.sessionEvent(command, now: now), now: now, slot: slot)
        case .refusal(let slot): try await Idempotency.answer(tx, slot, now: now) {}
        case .unkeyed(let reply): .answered(reply)
        }
    }

    /// A check-in: what `SessionLedger` decides from the known session, the site's and the
    /// employee's state and the events that arrived before it, written with its answer.
    package static func checkIn(
        _ tx: any SQLTransaction, _ steps: any IngestSteps, _ command: CheckInCommand, row: LedgerEvent, now: Date,
        slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome {
        let found = try await steps.claimAndRead(
            tx, slot, now: now, sessionKey: command.sessionKey, site: command.siteId, user: command.userId)
        guard found.claim == .claimed else { return .earlier(found.claim) }
        switch SessionLedger.checkIn(
            command, known: found.session, siteIsActive: found.siteIsActive == true,
            employeeIsActive: found.employeeIsActive == true, pending: found.pending, now: now)
        {
        case .answer(let outcome):
            return try await Idempotency.answered(tx, slot, outcome)
        case .record(let session, let applied):
            let reply = try slot.render(.recorded(session, created: true))
            try await steps.record(
                tx, session, createdAt: now, row: row, absorbing: applied, answer: (slot.scope, slot.key, reply))
            return .answered(reply)
        }
    }

    /// A check-out or heartbeat: what `SessionLedger` decides from the session, written with its
    /// answer; one that arrived before its check-in is kept, under its ledger row's id (so a
    /// rebuild gives the same rows).
    package static func apply(
        _ tx: any SQLTransaction, _ steps: any IngestSteps, _ command: SessionEventCommand, row: LedgerEvent,
        now: Date, slot: AnswerSlot<SessionEventOutcome>
    ) async throws -> SlotOutcome {
        let found = try await steps.claimAndRead(
            tx, slot, now: now, sessionKey: command.sessionKey, site: nil, user: nil)
        guard found.claim == .claimed else { return .earlier(found.claim) }
        let decision = SessionLedger.apply(command, to: found.session)
        // The resend of an event recorded before its key was purged: answered, not recorded again.
        if command.mayRepeatRecorded, try await LedgerRows.recorded(tx, like: row) {
            switch decision {
            case .storePending: return try await Idempotency.answered(tx, slot, .pending)
            case .update(let session): return try await Idempotency.answered(tx, slot, .applied(session))
            case .answer: break
            }
        }
        switch decision {
        case .storePending:
            let id = try await tx.appendLedger(row)
            try await SessionWrites.insertPending(
                tx, id: id, key: command.sessionKey, kind: command.kind, at: command.at, reason: command.reason,
                userId: command.userId, receivedAt: now, source: command.source)
            return try await Idempotency.answered(tx, slot, .pending)
        case .answer(let outcome):
            return try await Idempotency.answered(tx, slot, outcome)
        case .update(let session):
            let reply = try slot.render(.applied(session))
            try await steps.record(
                tx, session, createdAt: now, row: row, absorbing: [], answer: (slot.scope, slot.key, reply))
            return .answered(reply)
        }
    }
}
