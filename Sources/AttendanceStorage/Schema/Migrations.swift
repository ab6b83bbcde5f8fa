import Foundation

/// One migration of the one list both databases follow: named, applied once, never edited after it
/// ships, written once through the storage port. It carries its own SQL, so a later change of the
/// application's code can't change what it did.
package struct Migration: Sendable {
    package let name: String
    package let apply: @Sendable (any SQLTransaction) async throws -> Void

    package init(_ name: String, _ apply: @escaping @Sendable (any SQLTransaction) async throws -> Void) {
        self.name = name
        self.apply = apply
    }
}

package enum Migrations {
    /// Every migration after those `ReleaseSchema` stands for, in the order both databases apply
    /// them. Append only. The migrations after those `ReleaseSchema` stands for: a new database starts from that
    /// schema and records its migrations; one of the release of 2026-11-27 applies all of these.
    package static let all: [Migration] = {
        [
            SQLiteNaming.migration,
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
            // The one index SQLite's renaming left with its old name (SQLite can't rename an index).
            Migration("2026-11-27 one index name") { tx in
                try await tx.execute("DROP INDEX IF EXISTS \"consoleSessions_by_account\"")
                try await tx.execute(
                    "CREATE INDEX IF NOT EXISTS console_sessions_by_account ON console_sessions (account_id)")
            },
            // The console's language each person chose (NULL: their browser's).
            Migration("2026-11-27 account language") { tx in
                try await tx.execute("ALTER TABLE accounts ADD COLUMN language TEXT")
            },
            // The console's forms that make a secret (a token, enrollment codes, a password), each
            // sent once: a second send of the same form (F5, a double click) makes nothing.
            Migration("2026-11-27 console forms sent once") { tx in
                let real = tx.dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
                try await tx.execute(
                    """
                    CREATE TABLE console_forms (form_hash TEXT PRIMARY KEY,
                        account_id TEXT NOT NULL REFERENCES accounts(id), sent_at \(raw: real) NOT NULL)
                    """)
                try await tx.execute("CREATE INDEX console_forms_by_age ON console_forms (sent_at)")
            },
            // Failed sign-ins per account and per address (`SignInThrottle`), shared by the servers
            // on one database: a second replica gives a guesser no second allowance.
            Migration("2026-11-27 sign-in failures") { tx in
                let real = tx.dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
                try await tx.execute(
                    """
                    CREATE TABLE sign_in_failures (throttle_key TEXT PRIMARY KEY, failures INTEGER NOT NULL,
                        last_failure \(raw: real) NOT NULL)
                    """)
                try await tx.execute("CREATE INDEX sign_in_failures_by_age ON sign_in_failures (last_failure)")
            },
            Migration("2026-11-27 ledger merkle tree", LedgerTreeMigration.run),
            // The keys that seal the ledger's personal parts, one per subject (`PersonalKeyRows`):
            // erasing a person deletes theirs.
            Migration("2026-11-27 personal keys") { tx in
                let sqlite = tx.dialect == .sqlite
                try await tx.execute(
                    """
                    CREATE TABLE personal_keys (subject TEXT PRIMARY KEY,
                        key \(raw: sqlite ? "BLOB" : "BYTEA") NOT NULL,
                        created_at \(raw: sqlite ? "REAL" : "DOUBLE PRECISION") NOT NULL)
                    """)
            },
            // Witnesses' cosignatures of the ledger's checkpoints (`attendance witness`).
            Migration("2026-11-27 ledger cosignatures") { tx in
                let real = tx.dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
                try await tx.execute(
                    """
                    CREATE TABLE ledger_cosignatures (witness TEXT NOT NULL, tree_size BIGINT NOT NULL,
                        line TEXT NOT NULL, cosigned_at \(raw: real) NOT NULL, received_at \(raw: real) NOT NULL,
                        PRIMARY KEY (witness, tree_size))
                    """)
            },
            // Phones' reports that the ledger did not match their receipts.
            Migration("2026-11-27 ledger warnings") { tx in
                let sqlite = tx.dialect == .sqlite
                try await tx.execute(
                    """
                    CREATE TABLE ledger_warnings (
                        id \(raw: sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"),
                        device_id TEXT NOT NULL, user_id TEXT NOT NULL, problem TEXT NOT NULL, checkpoint TEXT,
                        reported_at \(raw: sqlite ? "REAL" : "DOUBLE PRECISION") NOT NULL)
                    """)
            },
            // Site surveys from the app's scanner (`SurveyRows`): the spots as JSON, newest by site.
            Migration("2026-11-28 site surveys") { tx in
                let sqlite = tx.dialect == .sqlite
                try await tx.execute(
                    """
                    CREATE TABLE site_surveys (
                        id \(raw: sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"),
                        site_id TEXT NOT NULL REFERENCES sites(id), device_id TEXT NOT NULL, user_id TEXT,
                        received_at \(raw: sqlite ? "REAL" : "DOUBLE PRECISION") NOT NULL, spots TEXT NOT NULL)
                    """)
                try await tx.execute("CREATE INDEX site_surveys_by_site ON site_surveys (site_id, id)")
            },
        ]
    }()
}

/// Brings a database to this release's schema in one transaction that holds a lock every starting
/// server takes (so instances starting together apply each migration once): a new database gets
/// `ReleaseSchema`; then every migration of `Migrations.all` not applied yet runs, in order, and
/// is recorded in `schema_migrations`. A SQLite file of the release of 2026-11-27 lists its
/// applied migrations in GRDB's `grdb_migrations`; they are adopted. A database older than that
/// release is refused (`MigrationError.tooOld`), unchanged.
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
        var applied = Set(
            try await tx.query("SELECT name FROM schema_migrations").map { try $0.decode(0, as: String.self) })
        let now =
            tx.dialect == .sqlite ? "(julianday('now') - 2440587.5) * 86400.0" : "extract(epoch FROM clock_timestamp())"
        if applied.isEmpty {
            // A new database: the release's schema, standing for the migrations it covers.
            try await ReleaseSchema.create(tx)
            for name in ReleaseSchema.covers {
                try await tx.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (\(name), \(raw: now))")
            }
            applied = Set(ReleaseSchema.covers)
        }
        let missing = ReleaseSchema.release.filter { !applied.contains($0) }
        guard missing.isEmpty else { throw MigrationError.tooOld(missing: missing) }
        let count = last.flatMap { name in Migrations.all.firstIndex { $0.name == name } }.map { $0 + 1 }
        for migration in Migrations.all.prefix(count ?? Migrations.all.count) where !applied.contains(migration.name) {
            try await migration.apply(tx)
            try await tx.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(raw: now))")
        }
    }
}
