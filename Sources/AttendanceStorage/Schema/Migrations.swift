import Foundation
import GRDB

/// One migration of the one list both databases follow: named, applied once, never edited after it
/// ships. Those before "2026-11-27 one naming convention" carry each database's own frozen steps
/// (the two schemas were written apart until then); every later one is one SQL text for both.
package struct Migration: Sendable {
    package let name: String
    package let apply: @Sendable (any SQLTransaction) async throws -> Void

    /// A shipped migration with each database's steps.
    package init(
        legacy name: String, sqlite: (@Sendable (Database) throws -> Void)?,
        postgresql: (@Sendable (PostgresTransaction) async throws -> Void)?
    ) {
        self.name = name
        apply = { tx in
            switch tx {
            case let tx as SQLiteTransaction: try sqlite?(tx.db)
            case let tx as PostgresTransaction: try await postgresql?(tx)
            default: throw RepositoryError(kind: .conflict, detail: "no migrations for a \(tx.dialect) transaction")
            }
        }
    }

    /// A migration written once, through the storage port; it carries its own SQL, so a later
    /// change of the application's code can't change what it did.
    package init(_ name: String, _ apply: @escaping @Sendable (any SQLTransaction) async throws -> Void) {
        self.name = name
        self.apply = apply
    }
}

package enum Migrations {
    /// Every migration, in the order both databases apply them. Append only.
    package static let all: [Migration] = {
        let sqlite = SQLiteRepository.legacySteps.steps
        let postgresql = PostgresRepository.legacySteps
        let shipped = [
            "2026-11-22 directory", "2026-11-22 sessions", "2026-11-22 idempotency keys", "2026-11-22 auth",
            "2026-11-22 beacons", "2026-11-24 site deactivation", "2026-11-24 release stranded claims",
            "2026-11-24 employee deactivation", "2026-11-24 session evidence", "2026-11-25 ledger",
            "2026-11-25 sessions into the ledger", "2026-11-25 correction requests", "2026-11-25 timesheet settings",
            "2026-11-25 pay periods", "2026-11-25 accounts", "2026-11-25 device state", "2026-11-26 directory version",
            // SQLite's names become PostgreSQL's (PostgreSQL has them already).
            "2026-11-27 one naming convention",
        ]
        return shipped.map { Migration(legacy: $0, sqlite: sqlite[$0], postgresql: postgresql[$0]) } + [
            Migration("2026-11-27 typed timesheet settings", TypedSettingsMigration.run),
            // The last 30-second step whose one-time code signed the account in: a code works once.
            Migration("2026-11-27 used one-time codes") { tx in
                try await tx.execute("ALTER TABLE accounts ADD COLUMN totp_last_step BIGINT")
            },
            // Secrets the servers on one database share (the console's sign-in form key).
            Migration("2026-11-27 server secrets") { tx in
                try await tx.execute("CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            },
            // What the owner requires of every account: one row.
            Migration("2026-11-27 account policy") { tx in
                try await tx.execute(
                    """
                    CREATE TABLE account_policy (
                        id INTEGER PRIMARY KEY CHECK (id = 1), totp_required BOOLEAN NOT NULL)
                    """)
                try await tx.execute("INSERT INTO account_policy (id, totp_required) VALUES (1, FALSE)")
            },
            // The app's version a phone enrolled with (the enrollment request carries it).
            Migration("2026-11-27 device app version") { tx in
                try await tx.execute("ALTER TABLE devices ADD COLUMN app_version TEXT")
            },
        ]
    }()
}

/// Applies the migrations a database has not applied yet, in `Migrations.all`'s order, in one
/// transaction that holds a lock every starting server takes (so instances starting together
/// apply each once), and records each in `schema_migrations`. A SQLite file written before this
/// runner existed lists its applied migrations in GRDB's `grdb_migrations`; they are adopted.
package enum MigrationRunner {
    package static func migrate(_ tx: any SQLTransaction, through last: String? = nil) async throws {
        // The lock releases before this runner took too, so that old and new servers starting
        // together still apply each migration once (SQLite has one writer).
        if tx.dialect == .postgresql { try await tx.execute("SELECT pg_advisory_xact_lock(731001)") }
        let real = tx.dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        try await tx.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at \(raw: real) NOT NULL)")
        if tx.dialect == .sqlite,
            try await tx.value(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'", as: Int.self)
                == 1
        {
            // When GRDB applied them is not known: 0. (`WHERE true`: SQLite's parser needs it to read
            // the ON CONFLICT as the insert's.)
            try await tx.execute(
                """
                INSERT INTO schema_migrations (name, applied_at) SELECT identifier, 0 FROM grdb_migrations
                WHERE true ON CONFLICT (name) DO NOTHING
                """)
        }
        let applied = Set(
            try await tx.query("SELECT name FROM schema_migrations").map { try $0.decode(0, as: String.self) })
        let count = last.flatMap { name in Migrations.all.firstIndex { $0.name == name } }.map { $0 + 1 }
        let now =
            tx.dialect == .sqlite ? "(julianday('now') - 2440587.5) * 86400.0" : "extract(epoch FROM clock_timestamp())"
        for migration in Migrations.all.prefix(count ?? Migrations.all.count) where !applied.contains(migration.name) {
            try await migration.apply(tx)
            try await tx.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(raw: now))")
        }
    }
}
