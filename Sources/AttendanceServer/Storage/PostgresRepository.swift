import AttendanceModels
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL store, for several stateless server instances sharing one database.
///
/// Same protocol and semantics as `SQLiteRepository`; times are epoch seconds (`double precision`)
/// as there. PostgreSQL runs transactions concurrently (READ COMMITTED), so every write to a
/// session takes a per-session advisory lock first: a check-out stored as pending can't slip past
/// a concurrent check-in's reconciliation.
public final class PostgresRepository: AttendanceRepository, AuthRepository, AdminRepository, Sendable {
    public let backendName = "postgresql"
    let client: PostgresClient
    let logger: Logger
    /// The pool's run loop when this repository runs it itself (`connect`); nil when a
    /// ServiceLifecycle group runs `pool` (`attendance serve`, through `unstarted`).
    private let runner: Task<Void, Never>?

    private init(client: PostgresClient, logger: Logger, runsPool: Bool) {
        self.client = client
        self.logger = logger
        runner = runsPool ? Task { await client.run() } : nil
    }

    private convenience init(url: String, logger: Logger, runsPool: Bool) throws {
        self.init(
            client: PostgresClient(configuration: try Self.configuration(url: url), backgroundLogger: logger),
            logger: logger, runsPool: runsPool)
    }

    /// Connects to `url` (`postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`)
    /// and runs the migrations. The pool runs in a task of the repository's own until `shutdown`
    /// (tests, the CLI's one-shot commands).
    public static func connect(url: String, logger: Logger = Logger(label: "attendance.postgres")) async throws
        -> PostgresRepository
    {
        try await connect(url: url, logger: logger, migratingThrough: nil)
    }

    /// The repository with its pool not yet running and nothing migrated: the caller runs `pool`
    /// as a ServiceLifecycle service (PostgresClient is one) and calls `migrate()` before using it.
    /// `attendance serve` does, so that its ServiceGroup starts and stops the pool with the server.
    public static func unstarted(url: String, logger: Logger = Logger(label: "attendance.postgres")) throws
        -> PostgresRepository
    {
        try PostgresRepository(url: url, logger: logger, runsPool: false)
    }

    /// The connection pool, a ServiceLifecycle service, for a repository made with `unstarted`.
    public var pool: PostgresClient { client }

    /// `migratingThrough`: stop after that migration (the upgrade tests build an older schema).
    static func connect(
        url: String, logger: Logger = Logger(label: "attendance.postgres"), migratingThrough last: String?
    ) async throws -> PostgresRepository {
        let repository = try PostgresRepository(url: url, logger: logger, runsPool: true)
        do {
            try await repository.migrate(through: last)
        } catch {
            repository.shutdown()
            throw error
        }
        return repository
    }

    /// Closes the connection pool when this repository runs it (a service's pool stops with its group).
    public func shutdown() { runner?.cancel() }

    public func ping() async throws {
        _ = try await client.query("SELECT 1", logger: logger).collect()
    }

    static func configuration(url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty
        else {
            throw Problem.field(
                "--database", url, expected: "a file path, or a URL like postgres://user:password@host:5432/database")
        }
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard !database.isEmpty else {
            throw Problem.field("--database", url, expected: "a database name after the host, e.g. /attendance")
        }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw Problem.field("sslmode", mode, expected: "disable, prefer or require")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database, tls: tls)
        configuration.options.maximumConnections = 32
        return configuration
    }

    // MARK: - Migrations (named, append-only)

    static let migrations: [(name: String, statements: [String])] = [
        (
            "2026-11-22 directory",
            [
                """
                CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL, time_zone TEXT NOT NULL, beacon_uuid TEXT NOT NULL,
                    major INTEGER NOT NULL CHECK (major BETWEEN 0 AND 65535), geofence_latitude DOUBLE PRECISION,
                    geofence_longitude DOUBLE PRECISION, geofence_radius_meters DOUBLE PRECISION, UNIQUE (beacon_uuid, major))
                """,
                "CREATE TABLE employees (id TEXT PRIMARY KEY, name TEXT NOT NULL, external_id TEXT UNIQUE, email TEXT)",
            ]
        ),
        (
            "2026-11-22 sessions",
            [
                """
                CREATE TABLE sessions (session_key TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                    site_id TEXT NOT NULL REFERENCES sites(id), device_id TEXT, check_in_at DOUBLE PRECISION NOT NULL,
                    check_out_at DOUBLE PRECISION, check_out_reason TEXT, last_seen_at DOUBLE PRECISION NOT NULL, source TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX sessions_by_user ON sessions (user_id, check_in_at)",
                "CREATE INDEX sessions_by_site ON sessions (site_id, check_in_at)",
                "CREATE INDEX sessions_open ON sessions (check_out_at, site_id)",
                """
                CREATE TABLE pending_session_events (id BIGSERIAL PRIMARY KEY, session_key TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('checkOut', 'heartbeat')), at DOUBLE PRECISION NOT NULL, reason TEXT, user_id TEXT,
                    received_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX pending_by_session ON pending_session_events (session_key)",
            ]
        ),
        (
            "2026-11-22 idempotency keys",
            [
                """
                CREATE TABLE idempotency_keys (scope TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('inFlight', 'done')), status INTEGER, content_type TEXT, body BYTEA,
                    created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (scope, key))
                """,
                "CREATE INDEX idempotency_by_age ON idempotency_keys (created_at)",
            ]
        ),
        (
            "2026-11-22 auth",
            [
                "CREATE TABLE admin_tokens (token_hash TEXT PRIMARY KEY, created_at DOUBLE PRECISION NOT NULL)",
                """
                CREATE TABLE enrollment_codes (code_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                    expires_at DOUBLE PRECISION NOT NULL, used_at DOUBLE PRECISION, created_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE devices (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id), token_hash TEXT NOT NULL UNIQUE,
                    platform TEXT NOT NULL, device_name TEXT, enrolled_at DOUBLE PRECISION NOT NULL, last_seen_at DOUBLE PRECISION,
                    revoked_at DOUBLE PRECISION)
                """,
                "CREATE INDEX devices_by_user ON devices (user_id)",
            ]
        ),
        (
            "2026-11-22 beacons",
            [
                """
                CREATE TABLE beacons (id TEXT PRIMARY KEY, site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
                    minor INTEGER NOT NULL CHECK (minor BETWEEN 0 AND 65535), label TEXT, tx_power_dbm DOUBLE PRECISION, UNIQUE (site_id, minor))
                """
            ]
        ),
        // A deleted site is deactivated, never removed: its sessions keep pointing to it.
        ("2026-11-24 site deactivation", ["ALTER TABLE sites ADD COLUMN deactivated_at DOUBLE PRECISION"]),
        // Claims now commit with their answers; one left unanswered was stranded by a crash of an
        // earlier release (a batch's claim). The upgrade releases them: their items' own keys make
        // the resend safe.
        ("2026-11-24 release stranded claims", ["DELETE FROM idempotency_keys WHERE state = 'inFlight'"]),
        // A deactivated employee is kept with their records; their devices are revoked.
        ("2026-11-24 employee deactivation", ["ALTER TABLE employees ADD COLUMN deactivated_at DOUBLE PRECISION"]),
        // What a device said about a session, kept as sent (SessionEvidence).
        (
            "2026-11-24 session evidence",
            [
                """
                ALTER TABLE sessions ADD COLUMN check_in_reason TEXT, ADD COLUMN check_out_source TEXT,
                    ADD COLUMN app_version TEXT,
                    ADD COLUMN evidence_rule TEXT, ADD COLUMN evidence_samples BIGINT,
                        ADD COLUMN evidence_median_rssi DOUBLE PRECISION,
                    ADD COLUMN evidence_stdev_db DOUBLE PRECISION, ADD COLUMN evidence_walking BOOLEAN
                """,
                "ALTER TABLE pending_session_events ADD COLUMN source TEXT",
            ]
        ),
        ("2026-11-25 ledger", ledgerStatements),
        // Sessions and pending rows recorded before the ledger become its first rows (`migrationCode`).
        ("2026-11-25 sessions into the ledger", []),
        ("2026-11-25 correction requests", requestStatements),
        ("2026-11-25 timesheet settings", timesheetStatements),
        ("2026-11-25 pay periods", payPeriodStatements),
        ("2026-11-25 accounts", accountStatements),
        (
            "2026-11-25 device state",
            [
                "ALTER TABLE devices ADD COLUMN state TEXT",
                "ALTER TABLE devices ADD COLUMN state_observed_at DOUBLE PRECISION",
            ]
        ),
        ("2026-11-26 directory version", directoryVersionStatements),
    ]

    /// Migrations that need code, run after their statements (by name, in the list's order).
    static let migrationCode: [String: @Sendable (PostgresRepository, PostgresConnection) async throws -> Void] = [
        "2026-11-25 sessions into the ledger": { repository, connection in
            try await repository.moveSessionsIntoLedger(on: connection)
        }
    ]

    /// Runs the migrations not yet applied, in one transaction, under an advisory lock, so that
    /// instances starting together apply each once.
    public func migrate() async throws { try await migrate(through: nil) }

    func migrate(through last: String?) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(731001)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
                logger: logger)
            var applied = Set<String>()
            for try await name in try await connection.query("SELECT name FROM schema_migrations", logger: logger)
                .decode(String.self)
            {
                applied.insert(name)
            }
            let count = last.flatMap { name in Self.migrations.firstIndex { $0.name == name } }.map { $0 + 1 }
            for migration in Self.migrations.prefix(count ?? Self.migrations.count)
            where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await Self.migrationCode[migration.name]?(self, connection)
                try await connection.query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), extract(epoch FROM now()))",
                    logger: logger)
            }
        }
    }

    /// A unique constraint refused the write (also when it happened inside a transaction, whose
    /// error wraps it).
    static func isUniqueViolation(_ error: any Error) -> Bool {
        if let wrapped = (error as? PostgresTransactionError)?.closureError { return isUniqueViolation(wrapped) }
        return (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    // MARK: - Idempotency

    /// A new key is claimed; a claim an earlier release left unanswered past its lease is taken
    /// over; otherwise the key's earlier answer, a payload mismatch, or in flight. A concurrent
    /// transaction's uncommitted claim of the same key makes the INSERT wait for its outcome.
    func claim(
        scope: String, key: String, requestHash: String, now: Date, on connection: PostgresConnection
    ) async throws
        -> IdempotencyClaim
    {
        let time = now.timeIntervalSince1970
        let stale = time - IdempotencyLease.seconds
        let claimed = try await connection.query(
            """
            INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at)
            VALUES (\(scope), \(key), \(requestHash), 'inFlight', \(time))
            ON CONFLICT (scope, key) DO UPDATE
                SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
            WHERE idempotency_keys.state = 'inFlight' AND idempotency_keys.created_at < \(stale)
            RETURNING 1
            """, logger: logger
        ).collect()
        if !claimed.isEmpty { return .claimed }
        let rows = try await connection.query(
            """
            SELECT request_hash, state, status, content_type, body FROM idempotency_keys
            WHERE scope = \(scope) AND key = \(key)
            """, logger: logger)
        for try await (hash, state, status, contentType, body) in rows.decode(
            (String, String, Int?, String?, ByteBuffer?).self)
        {
            guard hash == requestHash else { return .payloadMismatch }
            guard state == "done", let status, let contentType else { return .inFlight }
            return .replay(
                StoredReply(status: status, contentType: contentType, body: body.map { Data(buffer: $0) } ?? Data()))
        }
        return .claimed
    }

    func complete(scope: String, key: String, reply: StoredReply, on connection: PostgresConnection) async throws {
        let body = ByteBuffer(data: reply.body)
        try await connection.query(
            """
            UPDATE idempotency_keys SET state = 'done', status = \(reply.status), content_type = \(reply.contentType), body = \(body)
            WHERE scope = \(scope) AND key = \(key)
            """, logger: logger)
    }

    public func purgeIdempotency(olderThan cutoff: Date) async throws -> Int {
        let rows = try await client.query(
            "DELETE FROM idempotency_keys WHERE created_at < \(cutoff.timeIntervalSince1970) RETURNING 1",
            logger: logger
        ).collect()
        return rows.count
    }
}
