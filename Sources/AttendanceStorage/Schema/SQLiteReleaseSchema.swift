/// What SQLite's release schema has that PostgreSQL spells otherwise (`ReleaseSchema`): the
/// triggers that keep the ledger append-only and bump the directory's version. Their names are
/// those the release gave them, so that a new database and an upgraded one are the same.
enum SQLiteReleaseSchema {
    static let statements: [String] =
        [
            """
            CREATE TRIGGER ledger_rows_are_never_changed
            BEFORE UPDATE OF id, kind, session_key, user_id, actor, received_at, device_at, payload,
                personal_digest, hash
            ON ledger_events
            BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: its rows are never changed'); END
            """,
            """
            CREATE TRIGGER ledger_personal_data_is_only_erased
            BEFORE UPDATE OF personal ON ledger_events WHEN NEW.personal IS NOT NULL
            BEGIN SELECT RAISE(ABORT, 'personal data in the ledger can only be erased'); END
            """,
            """
            CREATE TRIGGER ledger_rows_are_never_deleted BEFORE DELETE ON ledger_events
            BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: its rows are never deleted'); END
            """,
            """
            CREATE TRIGGER ledger_seals_are_never_changed BEFORE UPDATE ON ledger_seals
            BEGIN SELECT RAISE(ABORT, 'the ledger chain is append-only'); END
            """,
            """
            CREATE TRIGGER ledger_seals_are_never_deleted BEFORE DELETE ON ledger_seals
            BEGIN SELECT RAISE(ABORT, 'the ledger chain is append-only'); END
            """,
        ]
        + directoryTriggers.flatMap { name, table, events in
            events.enumerated().map { index, event in
                """
                CREATE TRIGGER \(name)_directory_version_\(index) AFTER \(event) ON \(table)
                BEGIN UPDATE directory_version SET version = version + 1 WHERE id = 1; END
                """
            }
        }

    /// The changes that bump the directory's version, per table (trigger name, table, events). A
    /// device's `last_seen_at` and state, and an API token's `last_used_at`, change on traffic and
    /// are not cached, so they bump nothing.
    private static let directoryTriggers: [(String, String, [String])] = [
        ("sites", "sites", ["INSERT", "UPDATE", "DELETE"]),
        ("employees", "employees", ["INSERT", "UPDATE", "DELETE"]),
        ("devices", "devices", ["INSERT", "DELETE", "UPDATE OF token_hash, user_id, revoked_at"]),
        ("adminTokens", "admin_tokens", ["INSERT", "UPDATE", "DELETE"]),
        ("apiTokens", "api_tokens", ["INSERT", "DELETE", "UPDATE OF token_hash, account_id, role, revoked_at"]),
        ("accounts", "accounts", ["INSERT", "DELETE", "UPDATE OF email, role, sites, deactivated_at"]),
    ]
}
