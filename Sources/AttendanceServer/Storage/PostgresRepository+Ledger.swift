import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository: LedgerRepository {

    static let ledgerColumns =
        "id, kind, session_key, user_id, actor, received_at, device_at, payload, personal, personal_digest, hash"
    typealias LedgerRow = (Int64, String, String?, String?, String, Double, Double?, String, String?, String?, String)

    static func ledgerEvent(_ row: LedgerRow) -> LedgerEvent {
        let (id, kind, key, user, actor, receivedAt, deviceAt, payload, personal, digest, hash) = row
        return LedgerEvent(
            stored: id, kind: LedgerKind(rawValue: kind), sessionKey: key.map { SessionKey($0) },
            userId: user.map { UserID($0) }, actor: LedgerActor(rawValue: actor),
            receivedAt: Date(timeIntervalSince1970: receivedAt),
            deviceAt: deviceAt.map(Date.init(timeIntervalSince1970:)),
            payload: Data(payload.utf8), personal: personal.map { Data($0.utf8) }, personalDigest: digest, hash: hash)
    }

    /// Writes a ledger row (and its place in the sealer's queue) in the caller's transaction.
    @discardableResult
    func append(_ event: LedgerEvent, on connection: PostgresConnection) async throws -> Int64 {
        var binds = PostgresBindings(capacity: Self.ledgerInsertColumns.count)
        Self.bindLedgerInsert(event, into: &binds)
        let query = PostgresQuery(unsafeSQL: Self.ledgerRowCTE + " SELECT id FROM row", binds: binds)
        for try await id in try await connection.query(query, logger: logger).decode(Int64.self) { return id }
        throw RepositoryError(kind: .conflict, detail: "the ledger row was not written")
    }

    static let ledgerInsertColumns = [
        "kind", "session_key", "user_id", "actor", "received_at", "device_at", "payload", "personal",
        "personal_digest", "hash",
    ]

    /// The row (binds $1…$10, in `ledgerInsertColumns` order) and its place in the sealer's queue,
    /// as a statement's first common table expressions: `row` holds the new id.
    static let ledgerRowCTE = """
        WITH row AS (
            INSERT INTO ledger_events (\(ledgerInsertColumns.joined(separator: ", ")))
            VALUES (\(ledgerInsertColumns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")))
            RETURNING id),
        queued AS (INSERT INTO ledger_unsealed (event_id) SELECT id FROM row)
        """

    /// Binds the row's values, in `ledgerInsertColumns` order.
    static func bindLedgerInsert(_ event: LedgerEvent, into binds: inout PostgresBindings) {
        binds.append(event.kind.rawValue)
        binds.append(event.sessionKey?.rawValue)
        binds.append(event.userId?.rawValue)
        binds.append(event.actor.rawValue)
        binds.append(event.receivedAt.timeIntervalSince1970)
        binds.append(event.deviceAt?.timeIntervalSince1970)
        binds.append(String(decoding: event.payload, as: UTF8.self))
        binds.append(event.personal.map { String(decoding: $0, as: UTF8.self) })
        binds.append(event.personalDigest)
        binds.append(event.hash)
    }



    public func appendLedger(_ event: LedgerEvent) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await self.append(event, on: connection)
        }
    }

    /// One sealer at a time across every process on this database (an advisory lock that a busy
    /// sealer holds: the others seal nothing this round).
    public func sealLedger(limit: Int, now: Date) async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            var locked = false
            for try await taken in try await connection.query(
                "SELECT pg_try_advisory_xact_lock(731002)", logger: self.logger
            ).decode(Bool.self) { locked = taken }
            guard locked else { return 0 }
            var sequence: Int64 = 0
            var previous = LedgerHash.genesis
            for try await (last, chain) in try await connection.query(
                "SELECT sequence, chain_hash FROM ledger_seals ORDER BY sequence DESC LIMIT 1", logger: self.logger
            ).decode((Int64, String).self) { (sequence, previous) = (last, chain) }
            var events: [(id: Int64, hash: String)] = []
            for try await (id, hash) in try await connection.query(
                """
                SELECT u.event_id, e.hash FROM ledger_unsealed u JOIN ledger_events e ON e.id = u.event_id
                ORDER BY u.event_id LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String).self) { events.append((id, hash)) }
            guard !events.isEmpty else { return 0 }
            let seals = LedgerHash.seals(after: sequence, previous: previous, events: events)
            try await connection.query(
                """
                INSERT INTO ledger_seals (sequence, event_id, chain_hash, sealed_at)
                SELECT * FROM unnest(\(seals.map(\.sequence))::bigint[], \(seals.map(\.eventId))::bigint[],
                                     \(seals.map(\.chainHash))::text[]) AS s,
                     (SELECT \(now.timeIntervalSince1970)::double precision) AS t
                """, logger: self.logger)
            try await connection.query(
                "DELETE FROM ledger_unsealed WHERE event_id = ANY(\(events.map(\.id)))", logger: self.logger)
            return seals.count
        }
    }

    public func ledgerSeals(
        after sequence: Int64, limit: Int
    ) async throws
        -> [(seal: LedgerSeal, event: LedgerEvent?)]
    {
        let columns = Self.ledgerColumns.split(separator: ",").map { "e." + $0.trimmingCharacters(in: .whitespaces) }
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT s.sequence, s.event_id, s.chain_hash, \(columns.joined(separator: ", "))
                FROM ledger_seals s LEFT JOIN ledger_events e ON e.id = s.event_id
                WHERE s.sequence > $1 ORDER BY s.sequence LIMIT $2
                """, binds: try binds(sequence, limit))
        var found: [(seal: LedgerSeal, event: LedgerEvent?)] = []
        typealias Joined = (
            Int64, Int64, String, Int64?, String?, String?, String?, String?, Double?, Double?,
            String?, String?, String?, String?
        )
        for try await row in try await client.query(query, logger: logger).decode(Joined.self) {
            let seal = LedgerSeal(sequence: row.0, eventId: row.1, chainHash: row.2)
            guard let id = row.3, let kind = row.4, let actor = row.7, let receivedAt = row.8, let payload = row.10,
                let hash = row.13
            else {
                found.append((seal, nil))
                continue
            }
            let event = Self.ledgerEvent(
                (id, kind, row.5, row.6, actor, receivedAt, row.9, payload, row.11, row.12, hash))
            found.append((seal, event))
        }
        return found
    }

    public func unsealedLedgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await ledgerEvents(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(Self.ledgerColumns) FROM ledger_events e
                    WHERE e.id > $1 AND NOT EXISTS (SELECT 1 FROM ledger_seals s WHERE s.event_id = e.id)
                    ORDER BY e.id LIMIT $2
                    """, binds: try binds(id, limit)))
    }

    public func ledgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await ledgerEvents(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.ledgerColumns) FROM ledger_events WHERE id > $1 ORDER BY id LIMIT $2",
                binds: try binds(id, limit)))
    }

    public func ledgerEvents(_ filter: LedgerFilter, before id: Int64?, limit: Int) async throws -> [LedgerEvent] {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        func add(_ condition: String, _ value: any PostgresThrowingDynamicTypeEncodable) throws {
            try bindings.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "$\(bindings.count)"))
        }
        if let from = filter.from { try add("received_at >= ?", from.timeIntervalSince1970) }
        if let to = filter.to { try add("received_at < ?", to.timeIntervalSince1970) }
        if let actor = filter.actor { try add("actor = ?", actor.rawValue) }
        if let key = filter.sessionKey { try add("session_key = ?", key.rawValue) }
        if let user = filter.userId { try add("user_id = ?", user.rawValue) }
        if let id { try add("id < ?", id) }
        try bindings.append(limit)
        let sql =
            "SELECT \(Self.ledgerColumns) FROM ledger_events"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY id DESC LIMIT $\(bindings.count)"
        return try await ledgerEvents(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    private func ledgerEvents(_ query: PostgresQuery) async throws -> [LedgerEvent] {
        var events: [LedgerEvent] = []
        for try await row in try await client.query(query, logger: logger).decode(LedgerRow.self) {
            events.append(Self.ledgerEvent(row))
        }
        return events
    }

    public func allSessions() async throws -> [SessionRecord] {
        try await sessions(PostgresQuery(unsafeSQL: "SELECT \(Self.sessionColumns) FROM sessions"))
    }

    public func replaceSessions(with replay: LedgerReplay) async throws {
        try await client.withTransaction(logger: logger) { connection in
            // Every session writer takes its session's lock; this takes the table's, so none runs beside it.
            try await connection.query(
                "LOCK TABLE sessions, pending_session_events IN EXCLUSIVE MODE", logger: self.logger)
            try await connection.query("DELETE FROM pending_session_events", logger: self.logger)
            try await connection.query("DELETE FROM sessions", logger: self.logger)
            for (key, session) in replay.sessions {
                try await self.write(session, createdAt: replay.createdAt[key] ?? session.checkInAt, on: connection)
            }
            for row in replay.pendingRows {
                let event = row.event
                try await self.insertPending(
                    id: event.id, key: row.sessionKey, kind: event.kind, at: event.at, reason: event.reason,
                    userId: event.userId, receivedAt: row.receivedAt, source: event.source, on: connection)
            }
        }
    }

    // MARK: - Corrections

    public func correctSession(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: String?, now: Date
    ) async throws -> CorrectionOutcome {
        try await transaction(locking: [key]) { connection in
            try await self.correct(key, correction, actor: actor, requestId: requestId, now: now, on: connection)
        }
    }

    func correct(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: String?, now: Date,
        on connection: PostgresConnection
    ) async throws -> CorrectionOutcome {
        let session = try await session(key: key.rawValue, on: connection)
        return try await write(SessionLedger.correct(correction, of: session, key: key), on: connection) {
            LedgerEvent.change(
                .sessionCorrected, of: $0, correction: correction, reason: correction.reason, changes: $1,
                requestId: requestId, actor: actor, now: now)
        }
    }

    public func addSession(
        _ added: AddedSession, actor: LedgerActor, requestId: String?, now: Date
    ) async throws
        -> CorrectionOutcome
    {
        try await transaction(locking: [added.sessionKey]) { connection in
            try await self.add(added, actor: actor, requestId: requestId, now: now, on: connection)
        }
    }

    func add(
        _ added: AddedSession, actor: LedgerActor, requestId: String?, now: Date, on connection: PostgresConnection
    )
        async throws -> CorrectionOutcome
    {
        let existing = try await session(key: added.sessionKey.rawValue, on: connection)
        return try await write(SessionLedger.add(added, existing: existing), on: connection) {
            LedgerEvent.change(
                .sessionAdded, of: $0, reason: added.reason, changes: $1, requestId: requestId, actor: actor, now: now)
        }
    }

    public func voidSession(
        _ key: SessionKey, reason: String, actor: LedgerActor, now: Date
    ) async throws
        -> CorrectionOutcome
    {
        try await transaction(locking: [key]) { connection in
            let session = try await self.session(key: key.rawValue, on: connection)
            return try await self.write(SessionLedger.void(session, key: key, reason: reason, at: now), on: connection)
            {
                LedgerEvent.change(.sessionVoided, of: $0, reason: reason, changes: $1, actor: actor, now: now)
            }
        }
    }

    /// A change's decision written: its ledger row, then the session.
    private func write(
        _ decision: SessionLedger.ChangeDecision, on connection: PostgresConnection,
        event: (SessionRecord, [String: LedgerChange]) -> LedgerEvent
    ) async throws -> CorrectionOutcome {
        switch decision {
        case .answer(let outcome):
            return outcome
        case .write(let session, let changes):
            let row = event(session, changes)
            try await write(session, createdAt: row.receivedAt, recording: row, on: connection)
            return .applied(session)
        }
    }
}
