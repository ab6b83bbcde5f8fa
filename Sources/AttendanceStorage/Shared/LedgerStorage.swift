import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func latestLedgerID() async throws -> Int64 {
        try await database.read { try await $0.value("SELECT COALESCE(MAX(id), 0) FROM ledger_events") ?? 0 }
    }

    public func ledgerSessionKeys(after id: Int64, limit: Int) async throws -> [(id: Int64, sessionKey: SessionKey?)] {
        try await database.read { tx in
            try await tx.query("SELECT id, session_key FROM ledger_events WHERE id > \(id) ORDER BY id LIMIT \(limit)")
                .map { row in
                    (id: try row.decode(0, as: Int64.self), sessionKey: try row.decode(1, as: SessionKey?.self))
                }
        }
    }

    public func appendLedger(_ event: LedgerEvent) async throws {
        try await database.write { try await $0.appendLedger(event) }
    }

    /// Seals continue the chain from the last seal. SQLite has one writer, so rows commit in id
    /// order and the rows after the last sealed id are exactly the unsealed ones; PostgreSQL commits
    /// out of id order, so its rows wait in `ledger_unsealed`, and one sealer at a time across
    /// processes takes them (a busy sealer's advisory lock: the others seal nothing this round).
    public func sealLedger(limit: Int, now: Date) async throws -> Int {
        try await database.write { tx in try await Self.seal(tx, limit: limit, now: now) }
    }

    /// Seals up to `limit` rows and grows the tree over up to `limit` sealed ones, in one
    /// transaction (what the server's sealer does each round).
    public func sealAndGrowLedger(
        limit: Int, signer: NoteSigner, now: Date
    ) async throws -> (sealed: Int, growth: LedgerTreeGrowth?) {
        try await database.write { tx in try await Self.sealAndGrow(tx, limit: limit, signer: signer, now: now) }
    }

    static func sealAndGrow(
        _ tx: any SQLTransaction, limit: Int, signer: NoteSigner, now: Date
    ) async throws -> (sealed: Int, growth: LedgerTreeGrowth?) {
        let sealed = try await seal(tx, limit: limit, now: now)
        return (sealed, try await grow(tx, limit: limit, signer: signer, now: now))
    }

    static func seal(_ tx: any SQLTransaction, limit: Int, now: Date) async throws -> Int {
        if tx.dialect == .postgresql,
            try await tx.value("SELECT pg_try_advisory_xact_lock(731002)", as: Bool.self) != true
        {
            return 0
        }
        let last = try await tx.query(
            "SELECT sequence, event_id, chain_hash FROM ledger_seals ORDER BY sequence DESC LIMIT 1"
        ).first
        let sequence: Int64 = try last?.decode(0) ?? 0
        let lastEvent: Int64 = try last?.decode(1) ?? 0
        let rows: [SQLRow] =
            switch tx.dialect {
            case .sqlite:
                try await tx.query(
                    "SELECT id, hash FROM ledger_events WHERE id > \(lastEvent) ORDER BY id LIMIT \(limit)")
            case .postgresql:
                try await tx.query(
                    """
                    SELECT u.event_id, e.hash FROM ledger_unsealed u JOIN ledger_events e ON e.id = u.event_id
                    ORDER BY u.event_id LIMIT \(limit)
                    """)
            }
        let events = try rows.map {
            (id: try $0.decode(0, as: Int64.self), hash: try $0.decode(1, as: String.self))
        }
        guard !events.isEmpty else { return 0 }
        let seals = LedgerHash.seals(
            after: sequence, previous: try last?.decode(2) ?? LedgerHash.genesis, events: events)
        for slice in stride(from: 0, to: seals.count, by: 500) {
            let values = seals[slice..<min(slice + 500, seals.count)].map { seal -> SQL in
                "(\(seal.sequence), \(seal.eventId), \(seal.chainHash), \(now))"
            }
            try await tx.execute(
                """
                INSERT INTO ledger_seals (sequence, event_id, chain_hash, sealed_at)
                VALUES \(SQL.joined(values, separator: ", "))
                """)
        }
        if tx.dialect == .postgresql {
            try await tx.execute(
                """
                DELETE FROM ledger_unsealed
                WHERE event_id IN (SELECT event_id FROM ledger_seals WHERE sequence > \(sequence))
                """)
        }
        return seals.count
    }

    public func ledgerSeals(after sequence: Int64, limit: Int) async throws -> [(seal: LedgerSeal, event: LedgerEvent?)]
    {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT s.sequence, s.event_id, s.chain_hash, \(raw: LedgerRows.columns(alias: "e"))
                FROM ledger_seals s LEFT JOIN ledger_events e ON e.id = s.event_id
                WHERE s.sequence > \(sequence) ORDER BY s.sequence LIMIT \(limit)
                """
            ).map { row in
                let seal = LedgerSeal(sequence: try row[0], eventId: try row[1], chainHash: try row[2])
                return (seal, try LedgerRows.event(row, at: 3))
            }
        }
    }

    public func unsealedLedgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await database.read { tx in
            try await LedgerRows.events(
                tx,
                """
                SELECT \(raw: LedgerRows.columns(alias: "e")) FROM ledger_events e
                WHERE e.id > \(id) AND NOT EXISTS (SELECT 1 FROM ledger_seals s WHERE s.event_id = e.id)
                ORDER BY e.id LIMIT \(limit)
                """)
        }
    }

    public func ledgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await database.read { tx in
            try await LedgerRows.events(
                tx,
                """
                SELECT \(raw: LedgerRows.columns(alias: "e")) FROM ledger_events e WHERE e.id > \(id)
                ORDER BY e.id LIMIT \(limit)
                """)
        }
    }

    public func ledgerEvents(_ filter: LedgerFilter, before id: Int64?, limit: Int) async throws -> [LedgerEvent] {
        var conditions: [SQL] = []
        if let from = filter.from { conditions.append("e.received_at >= \(from)") }
        if let to = filter.to { conditions.append("e.received_at < \(to)") }
        if let actor = filter.actor { conditions.append("e.actor = \(actor.rawValue)") }
        if let key = filter.sessionKey { conditions.append("e.session_key = \(key)") }
        if let user = filter.userId { conditions.append("e.user_id = \(user)") }
        if let id { conditions.append("e.id < \(id)") }
        let condition = SQL.where(conditions)
        return try await database.read { tx in
            try await LedgerRows.events(
                tx,
                """
                SELECT \(raw: LedgerRows.columns(alias: "e")) FROM ledger_events e \(condition)
                ORDER BY e.id DESC LIMIT \(limit)
                """)
        }
    }

    public func allSessions() async throws -> [SessionRecord] {
        try await database.read { tx in
            try await SessionRows.sessions(tx, "SELECT \(raw: SessionRows.columns) FROM sessions")
        }
    }

    public func replaceSessions(with replay: LedgerReplay) async throws {
        try await database.write { tx in
            if tx.dialect == .postgresql {
                // Every session writer takes its session's lock; this takes the tables', so none runs beside it.
                try await tx.execute("LOCK TABLE sessions, pending_session_events IN EXCLUSIVE MODE")
            }
            try await tx.execute("DELETE FROM pending_session_events")
            try await tx.execute("DELETE FROM sessions")
            for (key, session) in replay.sessions {
                try await SessionWrites.write(tx, session, createdAt: replay.createdAt[key] ?? session.checkInAt)
            }
            for row in replay.pendingRows {
                let event = row.event
                try await SessionWrites.insertPending(
                    tx, id: event.id, key: row.sessionKey, kind: event.kind, at: event.at, reason: event.reason,
                    userId: event.userId, receivedAt: row.receivedAt, source: event.source)
            }
        }
    }

    public func correctSession(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: CorrectionRequestID?,
        now: Date
    ) async throws -> CorrectionOutcome {
        try await database.write(locking: [key.rawValue]) { tx in
            try await SessionWrites.correct(tx, key, correction, actor: actor, requestId: requestId, now: now)
        }
    }

    public func addSession(
        _ added: AddedSession, actor: LedgerActor, requestId: CorrectionRequestID?, now: Date
    ) async throws -> CorrectionOutcome {
        try await database.write(locking: [added.sessionKey.rawValue]) { tx in
            try await SessionWrites.add(tx, added, actor: actor, requestId: requestId, now: now)
        }
    }

    public func voidSession(
        _ key: SessionKey, reason: String, actor: LedgerActor, now: Date
    ) async throws -> CorrectionOutcome {
        try await database.write(locking: [key.rawValue]) { tx in
            try await SessionWrites.void(tx, key, reason: reason, actor: actor, now: now)
        }
    }
}

/// Ledger rows, read the one way both databases return them.
package enum LedgerRows {
    package static let names = [
        "id", "kind", "session_key", "user_id", "actor", "received_at", "device_at", "payload", "personal",
        "personal_digest", "hash",
    ]

    package static func columns(alias: String) -> String { names.map { "\(alias).\($0)" }.joined(separator: ", ") }

    /// The columns an insert writes (the database assigns `id`), in `names` order.
    package static let insertColumns = names.dropFirst().joined(separator: ", ")

    /// The rows of `actor`'s device event `event` (alias `e`): its kind, session and device time,
    /// which a resend shares with the row the first one made.
    package static func same(_ event: DeviceEventRef, actor: LedgerActor) -> SQL {
        """
        e.session_key = \(event.sessionKey) AND e.kind = \(event.kind.rawValue) AND e.actor = \(actor.rawValue)
            AND e.device_at = \(event.at)
        """
    }

    /// Whether a row of the same kind, session, actor and device time is in the ledger already.
    package static func recorded(_ tx: any SQLTransaction, like row: LedgerEvent) async throws -> Bool {
        guard let key = row.sessionKey, let at = row.deviceAt else { return false }
        let event = DeviceEventRef(sessionKey: key, kind: row.kind, at: at)
        return try await tx.value(
            "SELECT 1 FROM ledger_events e WHERE \(same(event, actor: row.actor)) LIMIT 1", as: Int64.self) != nil
    }

    /// The rows `sql` selects, their personal parts opened (`PersonalKeyRows.open`).
    package static func events(_ tx: any SQLTransaction, _ sql: SQL) async throws -> [LedgerEvent] {
        try await PersonalKeyRows.open(try await tx.query(sql).compactMap { try event($0, at: 0) }, tx)
    }

    /// The row in `names` order from position `first`, or nil when its id is NULL (a LEFT JOIN
    /// that found none: the row is gone).
    package static func event(_ row: SQLRow, at first: Int) throws -> LedgerEvent? {
        guard let id = try row.decode(first, as: Int64?.self) else { return nil }
        func column<Value: SQLDecodable>(_ offset: Int) throws -> Value { try row.decode(first + offset) }
        return LedgerEvent(
            stored: id, kind: LedgerKind(rawValue: try column(1)), sessionKey: try column(2), userId: try column(3),
            actor: LedgerActor(rawValue: try column(4)), receivedAt: try column(5), deviceAt: try column(6),
            payload: try column(7), personal: try column(8), personalDigest: try column(9), hash: try column(10))
    }
}
