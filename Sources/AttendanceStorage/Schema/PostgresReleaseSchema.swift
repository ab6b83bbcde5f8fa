/// What PostgreSQL's release schema has that SQLite spells otherwise (`ReleaseSchema`): the queue
/// of ledger rows not sealed yet (transactions commit out of id order here, so the sealer takes
/// what the queue shows committed), and the functions and triggers that keep the ledger
/// append-only and bump the directory's version.
enum PostgresReleaseSchema {
    static let statements: [String] =
        [
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
                RAISE EXCEPTION 'the ledger is append-only: its rows are never changed \
            (personal data can only be erased)';
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

    /// The changes that bump the directory's version, per table. A device's `last_seen_at` and
    /// state, and an API token's `last_used_at`, change on traffic and are not cached, so they
    /// bump nothing.
    private static let directoryTriggers: [(String, String)] = [
        ("sites", "INSERT OR UPDATE OR DELETE"),
        ("employees", "INSERT OR UPDATE OR DELETE"),
        ("devices", "INSERT OR DELETE OR UPDATE OF token_hash, user_id, revoked_at"),
        ("admin_tokens", "INSERT OR UPDATE OR DELETE"),
        ("api_tokens", "INSERT OR DELETE OR UPDATE OF token_hash, account_id, role, revoked_at"),
        ("accounts", "INSERT OR DELETE OR UPDATE OF email, role, sites, deactivated_at"),
    ]
}
