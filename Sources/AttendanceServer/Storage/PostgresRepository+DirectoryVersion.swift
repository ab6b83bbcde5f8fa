import Foundation
import PostgresNIO

extension PostgresRepository {
    /// One row counts the changes to what a server process may cache (`DirectoryWatch`): sites,
    /// employees, devices' tokens and revocations, admin and API tokens, accounts. Triggers bump it
    /// in the transaction of the change itself, so no code path, and no replica, can forget to.
    static let directoryVersionStatements: [String] =
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

    public func directoryVersion() async throws -> Int64 {
        for try await version in try await client.query(
            "SELECT version FROM directory_version WHERE id = 1", logger: logger
        ).decode(Int64.self) {
            return version
        }
        return 0
    }
}
