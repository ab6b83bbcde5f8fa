import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: LedgerRepository {

    /// Writes a ledger row in the caller's transaction; returns its id.
    @discardableResult
    static func append(_ event: LedgerEvent, db: Database) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO ledger_events (kind, session_key, user_id, actor, received_at, device_at, payload, personal,
                                          personal_digest, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            event.kind.rawValue, event.sessionKey?.rawValue, event.userId?.rawValue, event.actor.rawValue,
            event.receivedAt.timeIntervalSince1970, event.deviceAt?.timeIntervalSince1970,
            String(decoding: event.payload, as: UTF8.self), event.personal.map { String(decoding: $0, as: UTF8.self) },
            event.personalDigest, event.hash,
        ])
        return db.lastInsertedRowID
    }

    static func ledgerEvent(_ row: Row) -> LedgerEvent {
        let deviceAt: Double? = row["device_at"]
        let personal: String? = row["personal"]
        return LedgerEvent(
            stored: row["id"], kind: LedgerKind(rawValue: row["kind"]),
            sessionKey: (row["session_key"] as String?).map { SessionKey($0) },
            userId: (row["user_id"] as String?).map { UserID($0) }, actor: LedgerActor(rawValue: row["actor"]),
            receivedAt: Date(timeIntervalSince1970: row["received_at"]),
            deviceAt: deviceAt.map(Date.init(timeIntervalSince1970:)), payload: Data((row["payload"] as String).utf8),
            personal: personal.map { Data($0.utf8) }, personalDigest: row["personal_digest"], hash: row["hash"])
    }

    public func appendLedger(_ event: LedgerEvent) async throws {
        try await writer.write { db in _ = try Self.append(event, db: db) }
    }

    /// SQLite has one writer, so rows commit in id order: the rows after the last sealed id are
    /// exactly the unsealed ones.
    public func sealLedger(limit: Int, now: Date) async throws -> Int {
        try await writer.write { db in
            let last = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT sequence, event_id, chain_hash FROM ledger_seals ORDER BY sequence DESC LIMIT 1"))
            let sequence: Int64 = last?["sequence"] ?? 0
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, hash FROM ledger_events WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [last?["event_id"] as Int64? ?? 0, limit])
            let seals = LedgerHash.seals(
                after: sequence, previous: last?["chain_hash"] ?? LedgerHash.genesis,
                events: rows.map { (id: $0["id"], hash: $0["hash"]) })
            for seal in seals {
                try db.cachedStatement(
                    sql: "INSERT INTO ledger_seals (sequence, event_id, chain_hash, sealed_at) VALUES (?, ?, ?, ?)"
                ).execute(arguments: [seal.sequence, seal.eventId, seal.chainHash, now.timeIntervalSince1970])
            }
            return seals.count
        }
    }

    public func ledgerSeals(
        after sequence: Int64, limit: Int
    ) async throws
        -> [(seal: LedgerSeal, event: LedgerEvent?)]
    {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT s.sequence AS sealSequence, s.event_id AS sealEventId, s.chain_hash AS sealChainHash, e.*
                        FROM ledger_seals s LEFT JOIN ledger_events e ON e.id = s.event_id
                        WHERE s.sequence > ? ORDER BY s.sequence LIMIT ?
                        """), arguments: [sequence, limit]
            ).map { row in
                let seal = LedgerSeal(
                    sequence: row["sealSequence"], eventId: row["sealEventId"], chainHash: row["sealChainHash"])
                return (seal, (row["id"] as Int64?) == nil ? nil : Self.ledgerEvent(row))
            }
        }
    }

    public func unsealedLedgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM ledger_events e
                        WHERE e.id > ? AND NOT EXISTS (SELECT 1 FROM ledger_seals s WHERE s.event_id = e.id)
                        ORDER BY e.id LIMIT ?
                        """), arguments: [id, limit]
            ).map(Self.ledgerEvent)
        }
    }

    public func ledgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM ledger_events WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [id, limit]
            ).map(Self.ledgerEvent)
        }
    }

    public func ledgerEvents(_ filter: LedgerFilter, before id: Int64?, limit: Int) async throws -> [LedgerEvent] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let from = filter.from {
            conditions.append("received_at >= ?")
            arguments.append(from.timeIntervalSince1970)
        }
        if let to = filter.to {
            conditions.append("received_at < ?")
            arguments.append(to.timeIntervalSince1970)
        }
        if let actor = filter.actor {
            conditions.append("actor = ?")
            arguments.append(actor.rawValue)
        }
        if let key = filter.sessionKey {
            conditions.append("session_key = ?")
            arguments.append(key.rawValue)
        }
        if let user = filter.userId {
            conditions.append("user_id = ?")
            arguments.append(user.rawValue)
        }
        if let id {
            conditions.append("id < ?")
            arguments.append(id)
        }
        arguments.append(limit)
        let sql =
            "SELECT * FROM ledger_events"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY id DESC LIMIT ?"
        let bound = StatementArguments(arguments)
        return try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: bound).map(Self.ledgerEvent)
        }
    }

    public func allSessions() async throws -> [SessionRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.sessionColumns) FROM sessions").map(Self.sessionRecord)
        }
    }

    public func replaceSessions(with replay: LedgerReplay) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM pending_session_events; DELETE FROM sessions")
            for (key, session) in replay.sessions {
                try Self.write(session, createdAt: replay.createdAt[key] ?? session.checkInAt, db: db)
            }
            for row in replay.pendingRows {
                let event = row.event
                try Self.insertPending(
                    id: event.id, key: row.sessionKey, kind: event.kind, at: event.at, reason: event.reason,
                    userId: event.userId, receivedAt: row.receivedAt, source: event.source, db: db)
            }
        }
    }

    // MARK: - Corrections

    public func correctSession(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: String?, now: Date
    ) async throws -> CorrectionOutcome {
        try await writer.write { db in
            try Self.correct(key, correction, actor: actor, requestId: requestId, now: now, db: db)
        }
    }

    static func correct(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: String?, now: Date,
        db: Database
    ) throws -> CorrectionOutcome {
        let session = try session(key: key.rawValue, db: db)
        return try write(SessionLedger.correct(correction, of: session, key: key), db: db) { next, changes in
            LedgerEvent.change(
                .sessionCorrected, of: next, correction: correction, reason: correction.reason, changes: changes,
                requestId: requestId, actor: actor, now: now)
        }
    }

    public func addSession(
        _ added: AddedSession, actor: LedgerActor, requestId: String?, now: Date
    ) async throws
        -> CorrectionOutcome
    {
        try await writer.write { db in try Self.add(added, actor: actor, requestId: requestId, now: now, db: db) }
    }

    static func add(
        _ added: AddedSession, actor: LedgerActor, requestId: String?, now: Date, db: Database
    ) throws
        -> CorrectionOutcome
    {
        let existing = try session(key: added.sessionKey.rawValue, db: db)
        return try write(SessionLedger.add(added, existing: existing), db: db) { next, changes in
            LedgerEvent.change(
                .sessionAdded, of: next, reason: added.reason, changes: changes, requestId: requestId, actor: actor,
                now: now)
        }
    }

    public func voidSession(
        _ key: SessionKey, reason: String, actor: LedgerActor, now: Date
    ) async throws
        -> CorrectionOutcome
    {
        try await writer.write { db in
            let session = try Self.session(key: key.rawValue, db: db)
            return try Self.write(SessionLedger.void(session, key: key, reason: reason, at: now), db: db) {
                next, changes in
                LedgerEvent.change(.sessionVoided, of: next, reason: reason, changes: changes, actor: actor, now: now)
            }
        }
    }

    /// A change's decision written: its ledger row, then the session.
    private static func write(
        _ decision: SessionLedger.ChangeDecision, db: Database,
        event: (SessionRecord, [String: LedgerChange]) -> LedgerEvent
    ) throws -> CorrectionOutcome {
        switch decision {
        case .answer(let outcome):
            return outcome
        case .write(let session, let changes):
            let row = event(session, changes)
            try append(row, db: db)
            try write(session, createdAt: row.receivedAt, db: db)
            return .applied(session)
        }
    }
}
