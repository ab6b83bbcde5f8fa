import AttendanceModels
import AttendanceRules
import Foundation
import GRDB

// SQLite's steps of the shipped migrations, each with its own SQL as it shipped: never edit one (a
// database written by any release upgrades through the same steps). Until
// "2026-11-27 one naming convention" the schema's names were camelCase; these steps keep them.

/// The SQLite steps of shipped migrations, collected by name (GRDB's `registerMigration` shape).
package struct LegacySQLiteSteps {
    private(set) var steps: [String: @Sendable (Database) throws -> Void] = [:]

    package mutating func registerMigration(_ name: String, _ step: @escaping @Sendable (Database) throws -> Void) {
        steps[name] = step
    }
}
extension SQLiteRepository {
    package static func registerAccountMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-25 accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE accounts (
                        id TEXT PRIMARY KEY,
                        email TEXT NOT NULL UNIQUE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
                        sites TEXT NOT NULL,
                        passwordHash TEXT NOT NULL,
                        totpSecret TEXT,
                        createdAt REAL NOT NULL,
                        deactivatedAt REAL
                    );
                    CREATE TABLE apiTokens (
                        id TEXT PRIMARY KEY,
                        accountId TEXT NOT NULL REFERENCES accounts(id),
                        tokenHash TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
                        createdAt REAL NOT NULL,
                        lastUsedAt REAL,
                        revokedAt REAL
                    );
                    CREATE TABLE consoleSessions (
                        tokenHash TEXT PRIMARY KEY,
                        accountId TEXT NOT NULL REFERENCES accounts(id),
                        csrfToken TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        expiresAt REAL NOT NULL
                    );
                    CREATE INDEX consoleSessions_by_account ON consoleSessions (accountId);
                    """)
        }
    }

    package static func registerAdminMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-22 beacons") { db in
            try db.execute(
                sql: """
                    CREATE TABLE beacons (
                        id TEXT PRIMARY KEY,
                        siteId TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
                        minor INTEGER NOT NULL CHECK (minor BETWEEN 0 AND 65535),
                        label TEXT,
                        txPowerDBm REAL,
                        UNIQUE (siteId, minor)
                    );
                    """)
        }
        // A deleted site is deactivated, never removed: its sessions keep pointing to it.
        migrator.registerMigration("2026-11-24 site deactivation") { db in
            try db.execute(sql: "ALTER TABLE sites ADD COLUMN deactivatedAt REAL")
        }
        // A deactivated employee is kept with their records; their devices are revoked.
        migrator.registerMigration("2026-11-24 employee deactivation") { db in
            try db.execute(sql: "ALTER TABLE employees ADD COLUMN deactivatedAt REAL")
        }
    }

    package static func registerAuthMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-22 auth") { db in
            try db.execute(
                sql: """
                    CREATE TABLE adminTokens (tokenHash TEXT PRIMARY KEY, createdAt REAL NOT NULL);
                    CREATE TABLE enrollmentCodes (
                        codeHash TEXT PRIMARY KEY,
                        userId TEXT NOT NULL REFERENCES employees(id),
                        expiresAt REAL NOT NULL,
                        usedAt REAL,
                        createdAt REAL NOT NULL
                    );
                    CREATE TABLE devices (
                        id TEXT PRIMARY KEY,
                        userId TEXT NOT NULL REFERENCES employees(id),
                        tokenHash TEXT NOT NULL UNIQUE,
                        platform TEXT NOT NULL,
                        deviceName TEXT,
                        enrolledAt REAL NOT NULL,
                        lastSeenAt REAL,
                        revokedAt REAL
                    );
                    CREATE INDEX devices_by_user ON devices (userId);
                    """)
        }
    }

    /// After every earlier migration (registered last).
    package static func registerDeviceStateMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-25 device state") { db in
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN state TEXT")
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN stateObservedAt REAL")
        }
    }

    /// One row counts the changes to what a server process may cache (`DirectoryWatch`): sites,
    /// employees, devices' tokens and revocations, admin and API tokens, accounts. Triggers bump it
    /// in the transaction of the change itself, so no code path can forget to.
    package static func registerDirectoryVersionMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-26 directory version") { db in
            try db.execute(
                sql: """
                    CREATE TABLE directoryVersion (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                    INSERT INTO directoryVersion (id, version) VALUES (1, 0);
                    """)
            for (table, events) in directoryTriggers {
                for (index, event) in events.enumerated() {
                    try db.execute(
                        sql: """
                            CREATE TRIGGER \(table)_directory_version_\(index) AFTER \(event) ON \(table)
                            BEGIN UPDATE directoryVersion SET version = version + 1 WHERE id = 1; END
                            """)
                }
            }
        }
    }

    /// The changes that bump the version, per table. A device's `lastSeenAt` and state, and an API
    /// token's `lastUsedAt`, change on traffic and are not cached, so they bump nothing.
    private static let directoryTriggers: [(String, [String])] = [
        ("sites", ["INSERT", "UPDATE", "DELETE"]),
        ("employees", ["INSERT", "UPDATE", "DELETE"]),
        ("devices", ["INSERT", "DELETE", "UPDATE OF tokenHash, userId, revokedAt"]),
        ("adminTokens", ["INSERT", "UPDATE", "DELETE"]),
        ("apiTokens", ["INSERT", "DELETE", "UPDATE OF tokenHash, accountId, role, revokedAt"]),
        ("accounts", ["INSERT", "DELETE", "UPDATE OF email, role, sites, deactivatedAt"]),
    ]

    package static func registerLedgerMigrations(_ migrator: inout LegacySQLiteSteps) {
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
            try LegacyLedgerMove.run(db)
        }
    }

    package static func registerPayPeriodMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-25 pay periods") { db in
            try db.execute(
                sql: """
                    CREATE TABLE payPeriods (
                        start TEXT PRIMARY KEY,
                        "end" TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'locked')),
                        changedAt REAL,
                        changedBy TEXT,
                        lockedAt REAL
                    );
                    CREATE TABLE lockedDays (
                        periodStart TEXT NOT NULL REFERENCES payPeriods(start),
                        userId TEXT NOT NULL,
                        siteId TEXT NOT NULL,
                        date TEXT NOT NULL,
                        row TEXT NOT NULL,
                        PRIMARY KEY (userId, date, siteId)
                    );
                    CREATE INDEX locked_days_by_period ON lockedDays (periodStart);
                    """)
        }
    }

    package static func registerRequestMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-25 correction requests") { db in
            try db.execute(
                sql: """
                    CREATE TABLE correctionRequests (
                        id TEXT PRIMARY KEY,
                        userId TEXT NOT NULL REFERENCES employees(id),
                        kind TEXT NOT NULL CHECK (kind IN ('correction', 'missingSession')),
                        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
                        sessionKey TEXT,
                        siteId TEXT,
                        checkInAt REAL,
                        checkOutAt REAL,
                        reason TEXT NOT NULL,
                        evidence TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        decidedAt REAL,
                        decidedBy TEXT,
                        comment TEXT
                    );
                    CREATE INDEX requests_by_user ON correctionRequests (userId, createdAt);
                    CREATE INDEX requests_by_state ON correctionRequests (state, createdAt);
                    """)
        }
    }

    package static func registerTimesheetMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-25 timesheet settings") { db in
            try db.execute(
                sql: """
                    CREATE TABLE timesheetSettings (
                        kind TEXT NOT NULL,
                        id TEXT NOT NULL,
                        userId TEXT,
                        siteId TEXT,
                        date TEXT,
                        body TEXT NOT NULL,
                        updatedAt REAL NOT NULL,
                        PRIMARY KEY (kind, id)
                    );
                    CREATE INDEX timesheet_settings_by_date ON timesheetSettings (kind, date);
                    CREATE INDEX sessions_by_time ON sessions (checkInAt, sessionKey);
                    """)
        }
    }

    /// SQLite's steps of the migrations up to "2026-11-27 one naming convention", by name, as they
    /// shipped (run by `MigrationRunner` in `Migrations.all`'s order).
    package static var legacySteps: LegacySQLiteSteps {
        var migrator = LegacySQLiteSteps()
        migrator.registerMigration("2026-11-22 directory") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sites (
                        id TEXT PRIMARY KEY, name TEXT NOT NULL, timeZone TEXT NOT NULL,
                        beaconUUID TEXT NOT NULL, major INTEGER NOT NULL CHECK (major BETWEEN 0 AND 65535),
                        geofenceLatitude REAL, geofenceLongitude REAL, geofenceRadiusMeters REAL,
                        UNIQUE (beaconUUID, major)
                    );
                    CREATE TABLE employees (
                        id TEXT PRIMARY KEY, name TEXT NOT NULL, externalId TEXT UNIQUE, email TEXT
                    );
                    """)
        }
        migrator.registerMigration("2026-11-22 sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (
                        sessionKey TEXT PRIMARY KEY,
                        userId TEXT NOT NULL REFERENCES employees(id),
                        siteId TEXT NOT NULL REFERENCES sites(id),
                        deviceId TEXT,
                        checkInAt REAL NOT NULL,
                        checkOutAt REAL,
                        checkOutReason TEXT,
                        lastSeenAt REAL NOT NULL,
                        source TEXT NOT NULL,
                        createdAt REAL NOT NULL
                    );
                    CREATE INDEX sessions_by_user ON sessions (userId, checkInAt);
                    CREATE INDEX sessions_by_site ON sessions (siteId, checkInAt);
                    CREATE INDEX sessions_open ON sessions (checkOutAt, siteId);
                    -- Check-outs and heartbeats that arrived before their session's check-in.
                    CREATE TABLE pendingSessionEvents (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        sessionKey TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('checkOut', 'heartbeat')),
                        at REAL NOT NULL,
                        reason TEXT,
                        userId TEXT,
                        receivedAt REAL NOT NULL
                    );
                    CREATE INDEX pending_by_session ON pendingSessionEvents (sessionKey);
                    """)
        }
        migrator.registerMigration("2026-11-22 idempotency keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE idempotencyKeys (
                        scope TEXT NOT NULL,
                        key TEXT NOT NULL,
                        requestHash TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('inFlight', 'done')),
                        status INTEGER,
                        contentType TEXT,
                        body BLOB,
                        createdAt REAL NOT NULL,
                        PRIMARY KEY (scope, key)
                    );
                    CREATE INDEX idempotency_by_age ON idempotencyKeys (createdAt);
                    """)
        }
        registerAuthMigrations(&migrator)
        registerAdminMigrations(&migrator)
        // Claims now commit with their answers; one left unanswered was stranded by a crash of an
        // earlier release (a batch's claim). The upgrade releases them: their items' own keys make
        // the resend safe.
        migrator.registerMigration("2026-11-24 release stranded claims") { db in
            try db.execute(sql: "DELETE FROM idempotencyKeys WHERE state = 'inFlight'")
        }
        // What a device said about a session, kept as sent (SessionEvidence).
        migrator.registerMigration("2026-11-24 session evidence") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN checkInReason TEXT;
                    ALTER TABLE sessions ADD COLUMN checkOutSource TEXT;
                    ALTER TABLE sessions ADD COLUMN appVersion TEXT;
                    ALTER TABLE sessions ADD COLUMN evidenceRule TEXT;
                    ALTER TABLE sessions ADD COLUMN evidenceSamples INTEGER;
                    ALTER TABLE sessions ADD COLUMN evidenceMedianRSSI REAL;
                    ALTER TABLE sessions ADD COLUMN evidenceStdevDB REAL;
                    ALTER TABLE sessions ADD COLUMN evidenceWalking INTEGER;
                    ALTER TABLE pendingSessionEvents ADD COLUMN source TEXT;
                    """)
        }
        registerLedgerMigrations(&migrator)
        registerRequestMigrations(&migrator)
        registerTimesheetMigrations(&migrator)
        registerPayPeriodMigrations(&migrator)
        registerAccountMigrations(&migrator)
        registerDeviceStateMigrations(&migrator)
        registerDirectoryVersionMigrations(&migrator)
        registerNamingMigrations(&migrator)
        return migrator
    }

    /// SQLite's tables and columns take PostgreSQL's names (snake_case), so that one SQL text serves
    /// both. SQLite (3.26 and later) rewrites the indexes, triggers and foreign keys that name them.
    package static func registerNamingMigrations(_ migrator: inout LegacySQLiteSteps) {
        migrator.registerMigration("2026-11-27 one naming convention") { db in
            for statement in [
                "ALTER TABLE accounts RENAME COLUMN passwordHash TO password_hash",
                "ALTER TABLE accounts RENAME COLUMN totpSecret TO totp_secret",
                "ALTER TABLE accounts RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE accounts RENAME COLUMN deactivatedAt TO deactivated_at",
                "ALTER TABLE adminTokens RENAME COLUMN tokenHash TO token_hash",
                "ALTER TABLE adminTokens RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE adminTokens RENAME TO admin_tokens",
                "ALTER TABLE apiTokens RENAME COLUMN accountId TO account_id",
                "ALTER TABLE apiTokens RENAME COLUMN tokenHash TO token_hash",
                "ALTER TABLE apiTokens RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE apiTokens RENAME COLUMN lastUsedAt TO last_used_at",
                "ALTER TABLE apiTokens RENAME COLUMN revokedAt TO revoked_at",
                "ALTER TABLE apiTokens RENAME TO api_tokens",
                "ALTER TABLE beacons RENAME COLUMN siteId TO site_id",
                "ALTER TABLE beacons RENAME COLUMN txPowerDBm TO tx_power_dbm",
                "ALTER TABLE consoleSessions RENAME COLUMN tokenHash TO token_hash",
                "ALTER TABLE consoleSessions RENAME COLUMN accountId TO account_id",
                "ALTER TABLE consoleSessions RENAME COLUMN csrfToken TO csrf_token",
                "ALTER TABLE consoleSessions RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE consoleSessions RENAME COLUMN expiresAt TO expires_at",
                "ALTER TABLE consoleSessions RENAME TO console_sessions",
                "ALTER TABLE correctionRequests RENAME COLUMN userId TO user_id",
                "ALTER TABLE correctionRequests RENAME COLUMN sessionKey TO session_key",
                "ALTER TABLE correctionRequests RENAME COLUMN siteId TO site_id",
                "ALTER TABLE correctionRequests RENAME COLUMN checkInAt TO check_in_at",
                "ALTER TABLE correctionRequests RENAME COLUMN checkOutAt TO check_out_at",
                "ALTER TABLE correctionRequests RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE correctionRequests RENAME COLUMN decidedAt TO decided_at",
                "ALTER TABLE correctionRequests RENAME COLUMN decidedBy TO decided_by",
                "ALTER TABLE correctionRequests RENAME TO correction_requests",
                "ALTER TABLE devices RENAME COLUMN userId TO user_id",
                "ALTER TABLE devices RENAME COLUMN tokenHash TO token_hash",
                "ALTER TABLE devices RENAME COLUMN deviceName TO device_name",
                "ALTER TABLE devices RENAME COLUMN enrolledAt TO enrolled_at",
                "ALTER TABLE devices RENAME COLUMN lastSeenAt TO last_seen_at",
                "ALTER TABLE devices RENAME COLUMN revokedAt TO revoked_at",
                "ALTER TABLE devices RENAME COLUMN stateObservedAt TO state_observed_at",
                "ALTER TABLE directoryVersion RENAME TO directory_version",
                "ALTER TABLE employees RENAME COLUMN externalId TO external_id",
                "ALTER TABLE employees RENAME COLUMN deactivatedAt TO deactivated_at",
                "ALTER TABLE enrollmentCodes RENAME COLUMN codeHash TO code_hash",
                "ALTER TABLE enrollmentCodes RENAME COLUMN userId TO user_id",
                "ALTER TABLE enrollmentCodes RENAME COLUMN expiresAt TO expires_at",
                "ALTER TABLE enrollmentCodes RENAME COLUMN usedAt TO used_at",
                "ALTER TABLE enrollmentCodes RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE enrollmentCodes RENAME TO enrollment_codes",
                "ALTER TABLE idempotencyKeys RENAME COLUMN requestHash TO request_hash",
                "ALTER TABLE idempotencyKeys RENAME COLUMN contentType TO content_type",
                "ALTER TABLE idempotencyKeys RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE idempotencyKeys RENAME TO idempotency_keys",
                "ALTER TABLE ledgerEvents RENAME COLUMN sessionKey TO session_key",
                "ALTER TABLE ledgerEvents RENAME COLUMN userId TO user_id",
                "ALTER TABLE ledgerEvents RENAME COLUMN receivedAt TO received_at",
                "ALTER TABLE ledgerEvents RENAME COLUMN deviceAt TO device_at",
                "ALTER TABLE ledgerEvents RENAME COLUMN personalDigest TO personal_digest",
                "ALTER TABLE ledgerEvents RENAME TO ledger_events",
                "ALTER TABLE ledgerSeals RENAME COLUMN eventId TO event_id",
                "ALTER TABLE ledgerSeals RENAME COLUMN chainHash TO chain_hash",
                "ALTER TABLE ledgerSeals RENAME COLUMN sealedAt TO sealed_at",
                "ALTER TABLE ledgerSeals RENAME TO ledger_seals",
                "ALTER TABLE lockedDays RENAME COLUMN periodStart TO period_start",
                "ALTER TABLE lockedDays RENAME COLUMN userId TO user_id",
                "ALTER TABLE lockedDays RENAME COLUMN siteId TO site_id",
                "ALTER TABLE lockedDays RENAME TO locked_days",
                "ALTER TABLE payPeriods RENAME COLUMN changedAt TO changed_at",
                "ALTER TABLE payPeriods RENAME COLUMN changedBy TO changed_by",
                "ALTER TABLE payPeriods RENAME COLUMN lockedAt TO locked_at",
                "ALTER TABLE payPeriods RENAME TO pay_periods",
                "ALTER TABLE pendingSessionEvents RENAME COLUMN sessionKey TO session_key",
                "ALTER TABLE pendingSessionEvents RENAME COLUMN userId TO user_id",
                "ALTER TABLE pendingSessionEvents RENAME COLUMN receivedAt TO received_at",
                "ALTER TABLE pendingSessionEvents RENAME TO pending_session_events",
                "ALTER TABLE sessions RENAME COLUMN sessionKey TO session_key",
                "ALTER TABLE sessions RENAME COLUMN userId TO user_id",
                "ALTER TABLE sessions RENAME COLUMN siteId TO site_id",
                "ALTER TABLE sessions RENAME COLUMN deviceId TO device_id",
                "ALTER TABLE sessions RENAME COLUMN checkInAt TO check_in_at",
                "ALTER TABLE sessions RENAME COLUMN checkOutAt TO check_out_at",
                "ALTER TABLE sessions RENAME COLUMN checkOutReason TO check_out_reason",
                "ALTER TABLE sessions RENAME COLUMN lastSeenAt TO last_seen_at",
                "ALTER TABLE sessions RENAME COLUMN createdAt TO created_at",
                "ALTER TABLE sessions RENAME COLUMN checkInReason TO check_in_reason",
                "ALTER TABLE sessions RENAME COLUMN checkOutSource TO check_out_source",
                "ALTER TABLE sessions RENAME COLUMN appVersion TO app_version",
                "ALTER TABLE sessions RENAME COLUMN evidenceRule TO evidence_rule",
                "ALTER TABLE sessions RENAME COLUMN evidenceSamples TO evidence_samples",
                "ALTER TABLE sessions RENAME COLUMN evidenceMedianRSSI TO evidence_median_rssi",
                "ALTER TABLE sessions RENAME COLUMN evidenceStdevDB TO evidence_stdev_db",
                "ALTER TABLE sessions RENAME COLUMN evidenceWalking TO evidence_walking",
                "ALTER TABLE sessions RENAME COLUMN clockSkewSeconds TO clock_skew_seconds",
                "ALTER TABLE sessions RENAME COLUMN voidedAt TO voided_at",
                "ALTER TABLE sessions RENAME COLUMN voidReason TO void_reason",
                "ALTER TABLE sites RENAME COLUMN timeZone TO time_zone",
                "ALTER TABLE sites RENAME COLUMN beaconUUID TO beacon_uuid",
                "ALTER TABLE sites RENAME COLUMN geofenceLatitude TO geofence_latitude",
                "ALTER TABLE sites RENAME COLUMN geofenceLongitude TO geofence_longitude",
                "ALTER TABLE sites RENAME COLUMN geofenceRadiusMeters TO geofence_radius_meters",
                "ALTER TABLE sites RENAME COLUMN deactivatedAt TO deactivated_at",
                "ALTER TABLE timesheetSettings RENAME COLUMN userId TO user_id",
                "ALTER TABLE timesheetSettings RENAME COLUMN siteId TO site_id",
                "ALTER TABLE timesheetSettings RENAME COLUMN updatedAt TO updated_at",
                "ALTER TABLE timesheetSettings RENAME TO timesheet_settings",
            ] {
                try db.execute(sql: statement)
            }
        }
    }
}
