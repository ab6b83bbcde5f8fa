import Foundation

/// The schema a new database starts from: every table as the release of 2026-11-27 (commit
/// 7e79804) left it, after "2026-11-27 one naming convention", in one text for both databases.
/// It stands for the migrations it lists (`covers`): a new database records them as applied and
/// runs only the migrations after them. A database of that release has applied them one by one
/// and takes the same later steps; one from before it is refused (`MigrationError.tooOld`).
/// See docs/decisions/0032-one-release-schema.md.
package enum ReleaseSchema {
    /// What a database of the release of 2026-11-27 has applied: an older one lacks some.
    package static let release = [
        "2026-11-22 directory", "2026-11-22 sessions", "2026-11-22 idempotency keys", "2026-11-22 auth",
        "2026-11-22 beacons", "2026-11-24 site deactivation", "2026-11-24 release stranded claims",
        "2026-11-24 employee deactivation", "2026-11-24 session evidence", "2026-11-25 ledger",
        "2026-11-25 sessions into the ledger", "2026-11-25 correction requests", "2026-11-25 timesheet settings",
        "2026-11-25 pay periods", "2026-11-25 accounts", "2026-11-25 device state", "2026-11-26 directory version",
    ]

    /// The migrations this schema stands for.
    package static let covers = release + ["2026-11-27 one naming convention"]

    /// Creates the schema in an empty database.
    package static func create(_ tx: any SQLTransaction) async throws {
        for statement in tables(Types(tx.dialect)) { try await tx.execute("\(raw: statement)") }
        try await tx.execute("INSERT INTO directory_version (id, version) VALUES (1, 0)")
        switch tx.dialect {
        case .sqlite: for statement in SQLiteReleaseSchema.statements { try await tx.execute("\(raw: statement)") }
        case .postgresql:
            for statement in PostgresReleaseSchema.statements { try await tx.execute("\(raw: statement)") }
        }
    }

    /// The column types the two databases spell differently. SQLite's are those its release
    /// declared: an `INTEGER PRIMARY KEY` is its row id, and the declared type sets a column's
    /// affinity.
    struct Types {
        let real: String, int64: String, bytes: String, bool: String, falseValue: String, serial: String

        init(_ dialect: SQLDialect) {
            switch dialect {
            case .sqlite:
                (real, int64, bytes, bool, falseValue) = ("REAL", "INTEGER", "BLOB", "INTEGER", "0")
                serial = "INTEGER PRIMARY KEY AUTOINCREMENT"
            case .postgresql:
                (real, int64, bytes, bool, falseValue) = ("DOUBLE PRECISION", "BIGINT", "BYTEA", "BOOLEAN", "FALSE")
                serial = "BIGSERIAL PRIMARY KEY"
            }
        }
    }

    /// Tables and indexes, columns in the order the release's migrations added them.
    static func tables(_ t: Types) -> [String] {
        let role = "role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor'))"
        return [
            """
            CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL, time_zone TEXT NOT NULL,
                beacon_uuid TEXT NOT NULL, major INTEGER NOT NULL CHECK (major BETWEEN 0 AND 65535),
                geofence_latitude \(t.real), geofence_longitude \(t.real), geofence_radius_meters \(t.real),
                deactivated_at \(t.real), UNIQUE (beacon_uuid, major))
            """,
            """
            CREATE TABLE employees (id TEXT PRIMARY KEY, name TEXT NOT NULL, external_id TEXT UNIQUE, email TEXT,
                deactivated_at \(t.real))
            """,
            """
            CREATE TABLE sessions (session_key TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                site_id TEXT NOT NULL REFERENCES sites(id), device_id TEXT, check_in_at \(t.real) NOT NULL,
                check_out_at \(t.real), check_out_reason TEXT, last_seen_at \(t.real) NOT NULL, source TEXT NOT NULL,
                created_at \(t.real) NOT NULL, check_in_reason TEXT, check_out_source TEXT, app_version TEXT,
                evidence_rule TEXT, evidence_samples \(t.int64), evidence_median_rssi \(t.real),
                evidence_stdev_db \(t.real), evidence_walking \(t.bool), clock_skew_seconds \(t.real),
                corrected \(t.bool) NOT NULL DEFAULT \(t.falseValue), voided_at \(t.real), void_reason TEXT)
            """,
            "CREATE INDEX sessions_by_user ON sessions (user_id, check_in_at)",
            "CREATE INDEX sessions_by_site ON sessions (site_id, check_in_at)",
            "CREATE INDEX sessions_open ON sessions (check_out_at, site_id)",
            "CREATE INDEX sessions_by_time ON sessions (check_in_at, session_key)",
            """
            CREATE TABLE pending_session_events (id \(t.serial), session_key TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('checkOut', 'heartbeat')), at \(t.real) NOT NULL, reason TEXT,
                user_id TEXT, received_at \(t.real) NOT NULL, source TEXT)
            """,
            "CREATE INDEX pending_by_session ON pending_session_events (session_key)",
            """
            CREATE TABLE idempotency_keys (scope TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('inFlight', 'done')), status INTEGER, content_type TEXT,
                body \(t.bytes), created_at \(t.real) NOT NULL, PRIMARY KEY (scope, key))
            """,
            "CREATE INDEX idempotency_by_age ON idempotency_keys (created_at)",
            "CREATE TABLE admin_tokens (token_hash TEXT PRIMARY KEY, created_at \(t.real) NOT NULL)",
            """
            CREATE TABLE enrollment_codes (code_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                expires_at \(t.real) NOT NULL, used_at \(t.real), created_at \(t.real) NOT NULL)
            """,
            """
            CREATE TABLE devices (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                token_hash TEXT NOT NULL UNIQUE, platform TEXT NOT NULL, device_name TEXT,
                enrolled_at \(t.real) NOT NULL, last_seen_at \(t.real), revoked_at \(t.real), state TEXT,
                state_observed_at \(t.real))
            """,
            "CREATE INDEX devices_by_user ON devices (user_id)",
            """
            CREATE TABLE beacons (id TEXT PRIMARY KEY, site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
                minor INTEGER NOT NULL CHECK (minor BETWEEN 0 AND 65535), label TEXT, tx_power_dbm \(t.real),
                UNIQUE (site_id, minor))
            """,
            """
            CREATE TABLE ledger_events (id \(t.serial), kind TEXT NOT NULL, session_key TEXT, user_id TEXT,
                actor TEXT NOT NULL, received_at \(t.real) NOT NULL, device_at \(t.real), payload TEXT NOT NULL,
                personal TEXT, personal_digest TEXT, hash TEXT NOT NULL)
            """,
            "CREATE INDEX ledger_by_session ON ledger_events (session_key, id)",
            "CREATE INDEX ledger_by_user ON ledger_events (user_id, id)",
            "CREATE INDEX ledger_by_time ON ledger_events (received_at, id)",
            """
            CREATE TABLE ledger_seals (sequence \(t.int64) PRIMARY KEY, event_id \(t.int64) NOT NULL UNIQUE,
                chain_hash TEXT NOT NULL, sealed_at \(t.real) NOT NULL)
            """,
            """
            CREATE TABLE correction_requests (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
                kind TEXT NOT NULL CHECK (kind IN ('correction', 'missingSession')),
                state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')), session_key TEXT,
                site_id TEXT, check_in_at \(t.real), check_out_at \(t.real), reason TEXT NOT NULL,
                evidence TEXT NOT NULL, created_at \(t.real) NOT NULL, decided_at \(t.real), decided_by TEXT,
                comment TEXT)
            """,
            "CREATE INDEX requests_by_user ON correction_requests (user_id, created_at)",
            "CREATE INDEX requests_by_state ON correction_requests (state, created_at)",
            """
            CREATE TABLE timesheet_settings (kind TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT, site_id TEXT,
                date TEXT, body TEXT NOT NULL, updated_at \(t.real) NOT NULL, PRIMARY KEY (kind, id))
            """,
            "CREATE INDEX timesheet_settings_by_date ON timesheet_settings (kind, date)",
            """
            CREATE TABLE pay_periods (start TEXT PRIMARY KEY, "end" TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'locked')), changed_at \(t.real),
                changed_by TEXT, locked_at \(t.real))
            """,
            """
            CREATE TABLE locked_days (period_start TEXT NOT NULL REFERENCES pay_periods(start), user_id TEXT NOT NULL,
                site_id TEXT NOT NULL, date TEXT NOT NULL, row TEXT NOT NULL, PRIMARY KEY (user_id, date, site_id))
            """,
            "CREATE INDEX locked_days_by_period ON locked_days (period_start)",
            """
            CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, \(role), sites TEXT NOT NULL,
                password_hash TEXT NOT NULL, totp_secret TEXT, created_at \(t.real) NOT NULL, deactivated_at \(t.real))
            """,
            """
            CREATE TABLE api_tokens (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
                token_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL, \(role), created_at \(t.real) NOT NULL,
                last_used_at \(t.real), revoked_at \(t.real))
            """,
            """
            CREATE TABLE console_sessions (token_hash TEXT PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id), csrf_token TEXT NOT NULL, created_at \(t.real) NOT NULL, expires_at \(t.real) NOT NULL)
            """,
            "CREATE INDEX console_sessions_by_account ON console_sessions (account_id)",
            "CREATE TABLE directory_version (id INTEGER PRIMARY KEY CHECK (id = 1), version \(t.int64) NOT NULL)",
        ]
    }
}

/// Why a database can't be brought to this release's schema.
package enum MigrationError: Error, CustomStringConvertible {
    /// Written by a release before 2026-11-27: it lacks some of the migrations `ReleaseSchema`
    /// stands for.
    case tooOld(missing: [String])

    package var description: String {
        switch self {
        case .tooOld(let missing):
            """
            this database was written by a release older than that of 2026-11-27 (commit 7e79804): it lacks \
            the migrations \(missing.map { "'\($0)'" }.joined(separator: ", ")). Upgrade it with that release \
            first (`git checkout 7e79804 && swift run attendance serve --database …`, stopped once it serves), \
            then start this one (docs/SERVER.md, "Upgrades")
            """
        }
    }
}
