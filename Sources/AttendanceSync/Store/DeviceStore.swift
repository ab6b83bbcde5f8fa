import AttendanceEngine
import AttendanceModels
import Foundation
import GRDB

/// The device's one SQLite database: the outbox, the engine snapshot, a bounded telemetry log and
/// a bounded trace log (for the diagnostics export). Every access goes through this type.
///
/// Durability: a file database runs in WAL mode with `synchronous = FULL`. In WAL mode FULL
/// syncs the WAL at every commit, so a transaction that has returned survives a process kill
/// *and* a power loss (given a disk that honours fsync). `NORMAL` would survive a kill but could
/// lose the last commits on power loss; attendance is payroll data, so FULL it is. Its cost is
/// measured by `bench/outbox` (BENCHMARKS.md).
public final class DeviceStore: Sendable {
    let writer: any DatabaseWriter
    /// The writer when it is a queue (the in-memory store), which `reading` reads without the guard.
    private let queue: DatabaseQueue?
    public let limits: Limits
    /// Runs inside each transition's transaction, after its writes and before its commit: an error
    /// it throws rolls the transaction back. Nil in the app; the simulator's crash in mid-write.
    private let beforeCommit: (@Sendable () throws -> Void)?

    /// How much of the bounded logs to keep, and for how long delivered rows stay.
    public struct Limits: Hashable, Sendable {
        public var telemetryRows: Int
        public var traceRows: Int
        public var deliveredRetentionSeconds: Double

        /// 5,000 audit records (days of normal use); 200,000 trace rows (about 11 hours of
        /// continuous ranging with 5 beacons in view — ranging is normally seconds per event);
        /// delivered events kept 7 days, for the History screen and support questions.
        public init(
            telemetryRows: Int = 5_000, traceRows: Int = 200_000, deliveredRetentionSeconds: Double = 7 * 86_400
        ) {
            self.telemetryRows = telemetryRows
            self.traceRows = traceRows
            self.deliveredRetentionSeconds = deliveredRetentionSeconds
        }
    }

    init(writer: any DatabaseWriter, limits: Limits, beforeCommit: (@Sendable () throws -> Void)? = nil) throws {
        self.writer = writer
        queue = writer as? DatabaseQueue
        self.limits = limits
        self.beforeCommit = beforeCommit
        try Self.migrator.migrate(writer)
    }

    /// Opens (or creates) the database file at `path`, in WAL mode with `synchronous = FULL`.
    public static func open(path: String, limits: Limits = Limits()) throws -> DeviceStore {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer after opening, not in `prepareDatabase`: GRDB's DatabasePool switches
        // the file to WAL after that hook and sets its writer to `synchronous = NORMAL` while doing
        // so (`Database.setUpWALMode`). With NORMAL a commit is not synced, and an event could be
        // lost to a power loss after `enqueue` returned. The writer is the one connection that commits.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try DeviceStore(writer: pool, limits: limits)
    }

    /// A private in-memory database, for tests and the simulator (`beforeCommit`: see the property).
    public static func inMemory(
        limits: Limits = Limits(), beforeCommit: (@Sendable () throws -> Void)? = nil
    ) throws -> DeviceStore {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        return try DeviceStore(
            writer: DatabaseQueue(configuration: configuration), limits: limits, beforeCommit: beforeCommit)
    }

    /// The journal mode and synchronous level actually in force on the connection that commits
    /// (for diagnostics and tests; a reader's own setting says nothing about how commits are synced).
    public func durabilitySettings() throws -> (journalMode: String, synchronous: Int) {
        try writer.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            )
        }
    }

    // MARK: - Migrations (named, append-only: never edit one that has shipped)

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("2026-11-22 outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        idempotencyKey TEXT NOT NULL UNIQUE,
                        sessionKey TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        eventTimestamp REAL NOT NULL,
                        payload BLOB NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'inFlight', 'delivered', 'dead')),
                        attempts INTEGER NOT NULL DEFAULT 0,
                        nextAttemptAt REAL NOT NULL,
                        lastError TEXT,
                        lastErrorWasTransport INTEGER NOT NULL DEFAULT 0,
                        enqueuedAt REAL NOT NULL,
                        deliveredAt REAL,
                        deadAt REAL
                    );
                    CREATE INDEX outbox_by_state ON outbox (state, id);
                    CREATE INDEX outbox_by_session ON outbox (sessionKey, id);
                    """)
        }
        migrator.registerMigration("2026-11-22 engine snapshot") { db in
            try db.execute(
                sql: """
                    CREATE TABLE engineSnapshot (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        state BLOB NOT NULL,
                        savedAt REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("2026-11-22 telemetry and trace logs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE telemetry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at REAL NOT NULL,
                        kind TEXT NOT NULL,
                        site TEXT,
                        detail TEXT NOT NULL
                    );
                    CREATE TABLE traceLog (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        line TEXT NOT NULL
                    );
                    """)
        }
        // Since when the server has answered 409 to an event (OutboxEntry.serverBusySince).
        migrator.registerMigration("2026-11-24 server busy since") { db in
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN serverBusySince REAL")
        }
        registerReceipts(&migrator)
        registerAnswerReceipts(&migrator)
        return migrator
    }

    // MARK: - Engine snapshot

    public func loadSnapshot() throws -> Data? {
        try reading { db in try Data.fetchOne(db, sql: "SELECT state FROM engineSnapshot WHERE id = 1") }
    }

    static func saveSnapshot(_ state: Data, at time: Date, in db: Database) throws {
        // Cached statements: a transition runs once a second while ranging (parsing and
        // authorizing the SQL each time was ~8 % of a simulated phone's CPU).
        try db.cachedStatement(
            sql:
                "INSERT INTO engineSnapshot (id, state, savedAt) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET state = excluded.state, savedAt = excluded.savedAt"
        )
        .execute(arguments: [state, time.timeIntervalSince1970])
    }

    // MARK: - One transition, atomically

    /// What one engine transition leaves behind: the new state, the events it enqueued, its audit
    /// records and the trace lines of what it saw.
    public struct Transition: Sendable {
        public var snapshot: Data?
        public var events: [AttendanceEvent]
        public var telemetry: [TelemetryRecord]
        public var traceLines: [String]

        public init(
            snapshot: Data? = nil, events: [AttendanceEvent] = [], telemetry: [TelemetryRecord] = [],
            traceLines: [String] = []
        ) {
            self.snapshot = snapshot
            self.events = events
            self.telemetry = telemetry
            self.traceLines = traceLines
        }
    }

    /// Commits a transition in one transaction: the snapshot and the events it enqueued are
    /// durable together or not at all, so no crash can leave a state that believes an event was
    /// recorded when it was not. Returns how many events were new (a re-derived event whose
    /// idempotency key is already stored is not stored again).
    @discardableResult
    public func commit(_ transition: Transition, at time: Date) throws -> Int {
        try transaction { db in
            if let snapshot = transition.snapshot { try Self.saveSnapshot(snapshot, at: time, in: db) }
            let inserted = try Self.insert(transition.events, at: time, in: db)
            try Self.append(transition.telemetry, in: db)
            for line in transition.traceLines {
                try db.cachedStatement(sql: "INSERT INTO traceLog (line) VALUES (?)").execute(arguments: [line])
            }
            try trimLogs(telemetry: !transition.telemetry.isEmpty, trace: !transition.traceLines.isEmpty, in: db)
            try beforeCommit?()
            return inserted
        }
    }

    /// Runs `body` in one write transaction, as GRDB's `write` does (`BEGIN IMMEDIATE`, `COMMIT`, a
    /// rollback when anything throws), with `BEGIN` and `COMMIT` compiled once per connection like
    /// the store's other frequent statements: a phone commits every few seconds while it ranges.
    func transaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            } catch {
                // GRDB's rollback does nothing when SQLite already rolled the transaction back.
                try? db.rollback()
                throw error
            }
        }
    }

    /// Runs `body` on a consistent view of the database. A file database (a pool: the app) reads on
    /// a reader connection, isolated by GRDB. The in-memory one (a queue: the simulator and tests)
    /// has a single connection that runs one access at a time, so no write can come between two
    /// statements of `body`, and it reads without GRDB's read-only guard: on a queue the guard
    /// switches `PRAGMA query_only` on and off, and every switch of a flag pragma expires all the
    /// connection's compiled statements, so each cached statement was compiled again at its next
    /// use (29 % of a simulated phone's CPU, decision 0043).
    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        if let queue { return try queue.unsafeRead(body) }
        return try writer.read(body)
    }

    /// Keeps the newest rows of the logs that grew in this transaction.
    private func trimLogs(telemetry: Bool, trace: Bool, in db: Database) throws {
        if telemetry {
            try db.cachedStatement(sql: "DELETE FROM telemetry WHERE id <= (SELECT MAX(id) FROM telemetry) - ?")
                .execute(arguments: [limits.telemetryRows])
        }
        if trace {
            try db.cachedStatement(sql: "DELETE FROM traceLog WHERE id <= (SELECT MAX(id) FROM traceLog) - ?").execute(
                arguments: [limits.traceRows])
        }
    }
}
