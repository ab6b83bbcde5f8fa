import Foundation
import GRDB

extension SQLiteRepository {
    /// One row counts the changes to what a server process may cache (`DirectoryWatch`): sites,
    /// employees, devices' tokens and revocations, admin and API tokens, accounts. Triggers bump it
    /// in the transaction of the change itself, so no code path can forget to.
    static func registerDirectoryVersionMigrations(_ migrator: inout DatabaseMigrator) {
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

    public func directoryVersion() async throws -> Int64 {
        try await writer.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM directoryVersion WHERE id = 1")) ?? 0
        }
    }
}
