import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: LedgerRepository {
    static func registerLedgerMigrations(_ migrator: inout DatabaseMigrator) {
        // The append-only ledger and its chain; triggers refuse any change but erasing personal data.
        migrator.registerMigration("2026-11-25 ledger") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ledgerEvents (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        sessionKey TEXT,
                        userId TEXT,
                        actor TEXT NOT NULL,
                        receivedAt REAL NOT NULL,
                        deviceAt REAL,
                        payload TEXT NOT NULL,
                        personal TEXT,
                        personalDigest TEXT,
                        hash TEXT NOT NULL
                    );
                    CREATE INDEX ledger_by_session ON ledgerEvents (sessionKey, id);
                    CREATE INDEX ledger_by_user ON ledgerEvents (userId, id);
                    CREATE INDEX ledger_by_time ON ledgerEvents (receivedAt, id);
                    CREATE TABLE ledgerSeals (
                        sequence INTEGER PRIMARY KEY,
                        eventId INTEGER NOT NULL UNIQUE,
                        chainHash TEXT NOT NULL,
                        sealedAt REAL NOT NULL
                    );
                    CREATE TRIGGER ledger_rows_are_never_changed
                    BEFORE UPDATE OF id, kind, sessionKey, userId, actor, receivedAt, deviceAt, payload,
                        personalDigest, hash
                    ON ledgerEvents
                    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: its rows are never changed'); END;
                    CREATE TRIGGER ledger_personal_data_is_only_erased
                    BEFORE UPDATE OF personal ON ledgerEvents WHEN NEW.personal IS NOT NULL
                    BEGIN SELECT RAISE(ABORT, 'personal data in the ledger can only be erased'); END;
                    CREATE TRIGGER ledger_rows_are_never_deleted BEFORE DELETE ON ledgerEvents
                    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: its rows are never deleted'); END;
                    CREATE TRIGGER ledger_seals_are_never_changed BEFORE UPDATE ON ledgerSeals
                    BEGIN SELECT RAISE(ABORT, 'the ledger chain is append-only'); END;
                    CREATE TRIGGER ledger_seals_are_never_deleted BEFORE DELETE ON ledgerSeals
                    BEGIN SELECT RAISE(ABORT, 'the ledger chain is append-only'); END;
                    ALTER TABLE sessions ADD COLUMN clockSkewSeconds REAL;
                    ALTER TABLE sessions ADD COLUMN corrected INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE sessions ADD COLUMN voidedAt REAL;
                    ALTER TABLE sessions ADD COLUMN voidReason TEXT;
                    """)
        }
        // Sessions and pending rows recorded before the ledger become its first rows (actor
        // `migration`), so that a rebuild gives them back as they were.
        migrator.registerMigration("2026-11-25 sessions into the ledger") { db in
            let pending = try Row.fetchAll(db, sql: "SELECT * FROM pendingSessionEvents ORDER BY id")
            try db.execute(sql: "DELETE FROM pendingSessionEvents")
            for row in pending {
                let kind = SessionEventCommand.Kind(rawValue: row["kind"]) ?? .heartbeat
                let key = SessionKey(row["sessionKey"])
                let userId = (row["userId"] as String?).map { UserID($0) }
                let source = (row["source"] as String?).flatMap(EventSource.init(rawValue:))
                let at = Date(timeIntervalSince1970: row["at"])
                let receivedAt = Date(timeIntervalSince1970: row["receivedAt"])
                let event = LedgerMigration.sessionEvent(
                    kind: kind, key: key, userId: userId, at: at, reason: row["reason"], source: source,
                    deviceId: nil, receivedAt: receivedAt)
                let id = try append(event, db: db)
                try insertPending(
                    id: id, key: key, kind: kind, at: at, reason: row["reason"], userId: userId,
                    receivedAt: receivedAt, source: source, db: db)
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT \(sessionColumns), createdAt FROM sessions ORDER BY createdAt, sessionKey")
            {
                let session = try sessionRecord(row)
                for event in LedgerMigration.events(
                    for: session, createdAt: Date(timeIntervalSince1970: row["createdAt"]))
                {
                    try append(event, db: db)
                }
            }
        }
    }

    /// Writes a ledger row in the caller's transaction; returns its id.
    @discardableResult
    static func append(_ event: LedgerEvent, db: Database) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO ledgerEvents (kind, sessionKey, userId, actor, receivedAt, deviceAt, payload, personal,
                                          personalDigest, hash)
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
        let deviceAt: Double? = row["deviceAt"]
        let personal: String? = row["personal"]
        return LedgerEvent(
            stored: row["id"], kind: LedgerKind(rawValue: row["kind"]),
            sessionKey: (row["sessionKey"] as String?).map { SessionKey($0) },
            userId: (row["userId"] as String?).map { UserID($0) }, actor: LedgerActor(rawValue: row["actor"]),
            receivedAt: Date(timeIntervalSince1970: row["receivedAt"]),
            deviceAt: deviceAt.map(Date.init(timeIntervalSince1970:)), payload: Data((row["payload"] as String).utf8),
            personal: personal.map { Data($0.utf8) }, personalDigest: row["personalDigest"], hash: row["hash"])
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
                    sql: "SELECT sequence, eventId, chainHash FROM ledgerSeals ORDER BY sequence DESC LIMIT 1"))
            let sequence: Int64 = last?["sequence"] ?? 0
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, hash FROM ledgerEvents WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [last?["eventId"] as Int64? ?? 0, limit])
            let seals = LedgerHash.seals(
                after: sequence, previous: last?["chainHash"] ?? LedgerHash.genesis,
                events: rows.map { (id: $0["id"], hash: $0["hash"]) })
            for seal in seals {
                try db.cachedStatement(
                    sql: "INSERT INTO ledgerSeals (sequence, eventId, chainHash, sealedAt) VALUES (?, ?, ?, ?)"
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
                        SELECT s.sequence AS sealSequence, s.eventId AS sealEventId, s.chainHash AS sealChainHash, e.*
                        FROM ledgerSeals s LEFT JOIN ledgerEvents e ON e.id = s.eventId
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
                        SELECT * FROM ledgerEvents e
                        WHERE e.id > ? AND NOT EXISTS (SELECT 1 FROM ledgerSeals s WHERE s.eventId = e.id)
                        ORDER BY e.id LIMIT ?
                        """), arguments: [id, limit]
            ).map(Self.ledgerEvent)
        }
    }

    public func ledgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM ledgerEvents WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [id, limit]
            ).map(Self.ledgerEvent)
        }
    }

    public func ledgerEvents(_ filter: LedgerFilter, before id: Int64?, limit: Int) async throws -> [LedgerEvent] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let from = filter.from {
            conditions.append("receivedAt >= ?")
            arguments.append(from.timeIntervalSince1970)
        }
        if let to = filter.to {
            conditions.append("receivedAt < ?")
            arguments.append(to.timeIntervalSince1970)
        }
        if let actor = filter.actor {
            conditions.append("actor = ?")
            arguments.append(actor.rawValue)
        }
        if let key = filter.sessionKey {
            conditions.append("sessionKey = ?")
            arguments.append(key.rawValue)
        }
        if let user = filter.userId {
            conditions.append("userId = ?")
            arguments.append(user.rawValue)
        }
        if let id {
            conditions.append("id < ?")
            arguments.append(id)
        }
        arguments.append(limit)
        let sql =
            "SELECT * FROM ledgerEvents" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
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
            try db.execute(sql: "DELETE FROM pendingSessionEvents; DELETE FROM sessions")
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
