import AttendanceModels
import AttendanceRules
import Foundation
import PostgresNIO

// PostgreSQL's migrations, named and append-only, each with its own SQL as it shipped: never edit one
// (a database written by any release upgrades through the same steps).
extension PostgresRepository {
    package static let accountStatements = [
        """
        CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')), sites TEXT NOT NULL,
            password_hash TEXT NOT NULL, totp_secret TEXT, created_at DOUBLE PRECISION NOT NULL,
            deactivated_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE api_tokens (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
            token_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
            created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION, revoked_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE console_sessions (token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
            csrf_token TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
        """,
        "CREATE INDEX console_sessions_by_account ON console_sessions (account_id)",
    ]

    /// The changes that bump the version, per table. A device's `last_seen_at` and state, and an
    /// API token's `last_used_at`, change on traffic and are not cached, so they bump nothing.
    private static let directoryTriggers: [(String, String)] = [
        ("sites", "INSERT OR UPDATE OR DELETE"),
        ("employees", "INSERT OR UPDATE OR DELETE"),
        ("devices", "INSERT OR DELETE OR UPDATE OF token_hash, user_id, revoked_at"),
        ("admin_tokens", "INSERT OR UPDATE OR DELETE"),
        ("api_tokens", "INSERT OR DELETE OR UPDATE OF token_hash, account_id, role, revoked_at"),
        ("accounts", "INSERT OR DELETE OR UPDATE OF email, role, sites, deactivated_at"),
    ]

    /// One row counts the changes to what a server process may cache (`DirectoryWatch`): sites,
    /// employees, devices' tokens and revocations, admin and API tokens, accounts. Triggers bump it
    /// in the transaction of the change itself, so no code path, and no replica, can forget to.
    package static let directoryVersionStatements: [String] =
        [
            "CREATE TABLE directory_version (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)",
            "INSERT INTO directory_version (id, version) VALUES (1, 0)",
            """
            CREATE FUNCTION bump_directory_version() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE directory_version SET version = version + 1 WHERE id = 1;
                RETURN NULL;
            END $$
            """,
        ]
        + directoryTriggers.map { table, events in
            """
            CREATE TRIGGER \(table)_directory_version AFTER \(events) ON \(table)
            FOR EACH STATEMENT EXECUTE FUNCTION bump_directory_version()
            """
        }

    /// The append-only ledger, its chain, and the queue of rows not sealed yet. Transactions
    /// commit out of id order here, so the sealer takes what the queue shows committed, not "every
    /// id after the last sealed one". Triggers refuse any change but erasing personal data.
    package static let ledgerStatements = [
        """
        CREATE TABLE ledger_events (id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, session_key TEXT, user_id TEXT,
            actor TEXT NOT NULL, received_at DOUBLE PRECISION NOT NULL, device_at DOUBLE PRECISION,
            payload TEXT NOT NULL, personal TEXT, personal_digest TEXT, hash TEXT NOT NULL)
        """,
        "CREATE INDEX ledger_by_session ON ledger_events (session_key, id)",
        "CREATE INDEX ledger_by_user ON ledger_events (user_id, id)",
        "CREATE INDEX ledger_by_time ON ledger_events (received_at, id)",
        """
        CREATE TABLE ledger_seals (sequence BIGINT PRIMARY KEY, event_id BIGINT NOT NULL UNIQUE,
            chain_hash TEXT NOT NULL, sealed_at DOUBLE PRECISION NOT NULL)
        """,
        "CREATE TABLE ledger_unsealed (event_id BIGINT PRIMARY KEY)",
        """
        CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                RAISE EXCEPTION 'the ledger is append-only: its rows are never deleted';
            END IF;
            IF NEW.personal IS NULL AND (NEW.id, NEW.kind, NEW.session_key, NEW.user_id, NEW.actor, NEW.received_at,
                NEW.device_at, NEW.payload, NEW.personal_digest, NEW.hash) IS NOT DISTINCT FROM (OLD.id, OLD.kind,
                OLD.session_key, OLD.user_id, OLD.actor, OLD.received_at, OLD.device_at, OLD.payload,
                OLD.personal_digest, OLD.hash) THEN
                RETURN NEW;
            END IF;
            RAISE EXCEPTION 'the ledger is append-only: its rows are never changed (personal data can only be erased)';
        END $$
        """,
        """
        CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger_events
            FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()
        """,
        """
        CREATE FUNCTION ledger_seals_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the ledger chain is append-only'; END $$
        """,
        """
        CREATE TRIGGER ledger_seals_append_only BEFORE UPDATE OR DELETE ON ledger_seals
            FOR EACH ROW EXECUTE FUNCTION ledger_seals_refuse_change()
        """,
        """
        ALTER TABLE sessions ADD COLUMN clock_skew_seconds DOUBLE PRECISION,
            ADD COLUMN corrected BOOLEAN NOT NULL DEFAULT FALSE, ADD COLUMN voided_at DOUBLE PRECISION,
            ADD COLUMN void_reason TEXT
        """,
    ]

    package static let payPeriodStatements = [
        """
        CREATE TABLE pay_periods (start TEXT PRIMARY KEY, "end" TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'locked')), changed_at DOUBLE PRECISION,
            changed_by TEXT, locked_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE locked_days (period_start TEXT NOT NULL REFERENCES pay_periods(start), user_id TEXT NOT NULL,
            site_id TEXT NOT NULL, date TEXT NOT NULL, row TEXT NOT NULL, PRIMARY KEY (user_id, date, site_id))
        """,
        "CREATE INDEX locked_days_by_period ON locked_days (period_start)",
    ]

    package static let requestStatements = [
        """
        CREATE TABLE correction_requests (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES employees(id),
            kind TEXT NOT NULL CHECK (kind IN ('correction', 'missingSession')),
            state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')), session_key TEXT, site_id TEXT,
            check_in_at DOUBLE PRECISION, check_out_at DOUBLE PRECISION, reason TEXT NOT NULL, evidence TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL, decided_at DOUBLE PRECISION, decided_by TEXT, comment TEXT)
        """,
        "CREATE INDEX requests_by_user ON correction_requests (user_id, created_at)",
        "CREATE INDEX requests_by_state ON correction_requests (state, created_at)",
    ]

    package static let timesheetStatements = [
        """
        CREATE TABLE timesheet_settings (kind TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT, site_id TEXT, date TEXT,
            body TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (kind, id))
        """,
        "CREATE INDEX timesheet_settings_by_date ON timesheet_settings (kind, date)",
        "CREATE INDEX sessions_by_time ON sessions (check_in_at, session_key)",
    ]

    /// PostgreSQL's steps of the migrations up to "2026-11-26 directory version", by name, as they
    /// shipped (run by `MigrationRunner` in `Migrations.all`'s order).
    package static let legacySteps: [String: @Sendable (PostgresTransaction) async throws -> Void] = {
        var steps: [String: @Sendable (PostgresTransaction) async throws -> Void] = [:]
        for (name, statements) in migrations {
            steps[name] = { tx in for statement in statements { try await tx.execute("\(raw: statement)") } }
        }
        // Sessions and pending rows recorded before the ledger become its first rows.
        steps["2026-11-25 sessions into the ledger"] = { tx in try await LegacyLedgerMove.run(tx) }
        return steps
    }()

    package static let migrations: [(name: String, statements: [String])] = [
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
}
