import AttendanceModels
import Foundation
import GRDB

extension DeviceStore {
    /// Stores events durably; returns once they are committed (see the type's note on
    /// `synchronous`). Returns how many were new: an event whose idempotency key is already
    /// stored (re-derived after a crash) is not stored twice.
    @discardableResult
    public func enqueue(_ events: [AttendanceEvent], at time: Date) throws -> Int {
        try commit(Transition(events: events), at: time)
    }

    static func insert(_ events: [AttendanceEvent], at time: Date, in db: Database) throws -> Int {
        guard !events.isEmpty else { return 0 }
        // A cached statement: the hot path of every enqueue, so it is compiled once per connection.
        let statement = try db.cachedStatement(sql: """
            INSERT INTO outbox (idempotencyKey, sessionKey, kind, eventTimestamp, payload, state, nextAttemptAt, enqueuedAt)
            VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)
            ON CONFLICT(idempotencyKey) DO NOTHING
            """)
        var inserted = 0
        for event in events {
            try statement.execute(arguments: [event.idempotencyKey, event.sessionKey.rawValue, event.kind.rawValue, event.timestamp.timeIntervalSince1970,
                                              try CanonicalJSON.encoder.encode(event), time.timeIntervalSince1970, time.timeIntervalSince1970])
            inserted += db.changesCount
        }
        return inserted
    }

    /// The next events to send at `now`, oldest first, at most `limit`: FIFO per session, so an
    /// event is ready only when no earlier event of its session is in flight or waiting for a
    /// later attempt. (Every earlier one is then ready too, and ahead of it in this batch.) The
    /// choice is made in SQL on the indexes; only the chosen rows' payloads are decoded.
    ///
    /// A heartbeat enqueued less than `heartbeatHoldSeconds` ago is held: it goes only with a
    /// batch that something else makes worth sending (another event, or a heartbeat held long
    /// enough), never on its own.
    public func nextBatch(now: Date, limit: Int, heartbeatHoldSeconds: Double = 0) throws -> [OutboxEntry] {
        try reading { db in
            // Cached, like every statement a drain runs: a phone drains at each event it records and
            // each upload answer, and compiling this query each time was 11 % of a simulated phone's CPU.
            try Row.fetchAll(db.cachedStatement(sql: """
                WITH ready AS (
                    SELECT o.id, o.kind, o.enqueuedAt FROM outbox o
                    WHERE o.state = 'pending' AND o.nextAttemptAt <= :now
                      AND NOT EXISTS (SELECT 1 FROM outbox p
                                      WHERE p.sessionKey = o.sessionKey AND p.id < o.id
                                        AND (p.state = 'inFlight' OR (p.state = 'pending' AND p.nextAttemptAt > :now)))
                )
                SELECT o.* FROM outbox o JOIN ready r ON r.id = o.id
                WHERE EXISTS (SELECT 1 FROM ready u WHERE u.kind != 'heartbeat' OR u.enqueuedAt <= :heldSince)
                ORDER BY o.id
                LIMIT :limit
                """), arguments: ["now": now.timeIntervalSince1970, "limit": limit,
                                 "heldSince": now.timeIntervalSince1970 - heartbeatHoldSeconds]).map(Self.entry)
        }
    }

    public func markInFlight(_ ids: [Int64]) throws {
        try update(ids, sql: "UPDATE outbox SET state = 'inFlight', attempts = attempts + 1 WHERE state = 'pending' AND id = ?")
    }

    public func markDelivered(_ ids: [Int64], at time: Date) throws {
        try update(ids, sql: """
            UPDATE outbox SET state = 'delivered', deliveredAt = ?, lastError = NULL, serverBusySince = NULL
            WHERE id = ?
            """, time.timeIntervalSince1970)
    }

    /// A retryable failure: back to pending until `nextAttemptAt`.
    public func markRetry(_ id: Int64, error: String, transport: Bool, nextAttemptAt: Date) throws {
        try transaction { db in
            try db.execute(sql: """
                UPDATE outbox SET state = 'pending', lastError = ?, lastErrorWasTransport = ?, nextAttemptAt = ?,
                    serverBusySince = NULL
                WHERE id = ?
                """, arguments: [error, transport, nextAttemptAt.timeIntervalSince1970, id])
        }
    }

    /// A 409 (the server still processing this key): back to pending until `nextAttemptAt`, and
    /// the time the 409s began is kept (the first one's).
    public func markServerBusy(_ id: Int64, error: String, nextAttemptAt: Date, at time: Date) throws {
        try transaction { db in
            try db.execute(sql: """
                UPDATE outbox SET state = 'pending', lastError = ?, lastErrorWasTransport = 0, nextAttemptAt = ?,
                    serverBusySince = COALESCE(serverBusySince, ?)
                WHERE id = ?
                """, arguments: [error, nextAttemptAt.timeIntervalSince1970, time.timeIntervalSince1970, id])
        }
    }

    /// A final refusal: kept as a dead letter with the server's reason.
    public func markDead(_ id: Int64, reason: String, at time: Date) throws {
        try transaction { db in
            try db.execute(
                sql: "UPDATE outbox SET state = 'dead', lastError = ?, deadAt = ?, serverBusySince = NULL WHERE id = ?",
                           arguments: [reason, time.timeIntervalSince1970, id])
        }
    }

    /// After a crash or a kill, rows that were in flight are pending again (the server
    /// deduplicates by idempotency key, so sending them again is safe).
    @discardableResult
    public func recoverInFlight() throws -> Int {
        try transaction { db in
            try db.execute(sql: "UPDATE outbox SET state = 'pending' WHERE state = 'inFlight'")
            return db.changesCount
        }
    }

    /// The network is back: rows that failed for lack of network are due now. Rows the server
    /// asked to wait (`Retry-After`, 5xx backoff) keep their time.
    @discardableResult
    public func resetTransportBackoff(now: Date) throws -> Int {
        try transaction { db in
            try db.execute(sql: "UPDATE outbox SET nextAttemptAt = ? WHERE state = 'pending' AND lastErrorWasTransport = 1 AND nextAttemptAt > ?",
                           arguments: [now.timeIntervalSince1970, now.timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// Deletes delivered rows older than the retention period; dead letters are never deleted here.
    @discardableResult
    public func compactDelivered(now: Date) throws -> Int {
        try transaction { db in
            try db.execute(sql: "DELETE FROM outbox WHERE state = 'delivered' AND deliveredAt < ?",
                           arguments: [now.timeIntervalSince1970 - limits.deliveredRetentionSeconds])
            return db.changesCount
        }
    }

    /// Puts dead letters back in the queue (after the cause was fixed, e.g. a re-enrollment).
    @discardableResult
    public func requeueDeadLetters(now: Date) throws -> Int {
        try transaction { db in
            try db.execute(sql: "UPDATE outbox SET state = 'pending', deadAt = NULL, nextAttemptAt = ? WHERE state = 'dead'",
                           arguments: [now.timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// When the next event can be sent, if any: the earliest time among the sessions' heads of
    /// line. A row waiting behind an earlier event of its session does not count, whatever its
    /// own time: a timer set for it would fire, find nothing to send, and be set again at once.
    /// A held heartbeat counts from the end of its hold (`nextBatch`).
    public func earliestPendingAttempt(heartbeatHoldSeconds: Double = 0) throws -> Date? {
        try reading { db in
            try Double.fetchOne(db.cachedStatement(sql: """
                SELECT MIN(CASE WHEN o.kind = 'heartbeat' THEN MAX(o.nextAttemptAt, o.enqueuedAt + :hold)
                                ELSE o.nextAttemptAt END) FROM outbox o
                WHERE o.state = 'pending'
                  AND NOT EXISTS (SELECT 1 FROM outbox p
                                  WHERE p.sessionKey = o.sessionKey AND p.id < o.id AND p.state IN ('pending', 'inFlight'))
                """), arguments: ["hold": heartbeatHoldSeconds]).map(Date.init(timeIntervalSince1970:))
        }
    }

    public func counts() throws -> OutboxCounts {
        try reading { db in
            var counts = OutboxCounts()
            let statement = try db.cachedStatement(sql: "SELECT state, COUNT(*) AS n FROM outbox GROUP BY state")
            for row in try Row.fetchAll(statement) {
                let n: Int = row["n"]
                switch OutboxState(rawValue: row["state"]) {
                case .pending: counts.pending = n
                case .inFlight: counts.inFlight = n
                case .delivered: counts.delivered = n
                case .dead: counts.dead = n
                case nil: break
                }
            }
            return counts
        }
    }

    public func entries(in state: OutboxState? = nil) throws -> [OutboxEntry] {
        try reading { db in
            let rows: [Row]
            if let state {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE state = ? ORDER BY id", arguments: [state.rawValue])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY id")
            }
            return try rows.map(Self.entry)
        }
    }

    public func deadLetters() throws -> [OutboxEntry] { try entries(in: .dead) }

    /// Runs `sql`, whose last parameter is a row's id, once per id in one transaction; `leading`
    /// binds the parameters before it. One cached statement serves every batch, whatever its size.
    private func update(_ ids: [Int64], sql: String, _ leading: (any DatabaseValueConvertible)? = nil) throws {
        guard !ids.isEmpty else { return }
        try transaction { db in
            let statement = try db.cachedStatement(sql: sql)
            for id in ids {
                try statement.execute(arguments: StatementArguments(leading.map { [$0, id] } ?? [id]))
            }
        }
    }

    static func entry(_ row: Row) throws -> OutboxEntry {
        let payload: Data = row["payload"]
        let event = try JSONDecoder().decode(AttendanceEvent.self, from: payload)
        let delivered: Double? = row["deliveredAt"]
        let busy: Double? = row["serverBusySince"]
        return OutboxEntry(
            id: row["id"], event: event, idempotencyKey: row["idempotencyKey"], state: OutboxState(rawValue: row["state"]) ?? .pending,
            attempts: row["attempts"], nextAttemptAt: Date(timeIntervalSince1970: row["nextAttemptAt"]), lastError: row["lastError"],
            lastErrorWasTransport: row["lastErrorWasTransport"], enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]),
            deliveredAt: delivered.map(Date.init(timeIntervalSince1970:)),
            serverBusySince: busy.map(Date.init(timeIntervalSince1970:)))
    }
}
