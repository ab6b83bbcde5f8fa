import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import AttendanceServer

/// A new database starts from `ReleaseSchema`; one the release of 2026-11-27 wrote takes that
/// release's migrations one by one. Both must end as the same schema, column by column, index by
/// index, constraint by constraint and trigger by trigger. A database older than that release is
/// refused, and left as it was.
@Suite struct ReleaseSchemaTests {
    @Test(arguments: Backend.allCases)
    func aNewDatabaseHasTheSchemaOfTheReleaseItUpgraded(backend: Backend) async throws {
        let (upgraded, directory) = try await UpgradeFixtureTests.open(backend)
        defer {
            upgraded.shutdown()
            if let directory { try? FileManager.default.removeItem(at: directory) }
        }
        let fresh = try await backend.makeRepository()
        defer { fresh.shutdown() }
        let expected = try await Self.schema(of: upgraded)
        let actual = try await Self.schema(of: fresh)
        #expect(expected.count > 100, "the description holds too little: \(expected.count) lines")
        for line in Set(expected).symmetricDifference(actual).sorted() {
            Issue.record("\(backend): \(expected.contains(line) ? "only upgraded" : "only new"): \(line)")
        }
    }

    @Test func aSQLiteFileOlderThanTheReleaseIsRefusedUnchanged() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("too-old-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // What the release of 2026-11-24 left: its first migrations, recorded by GRDB.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('2026-11-22 directory'), ('2026-11-22 sessions');
                    CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL);
                    """)
        }
        let error = try #require(throws: MigrationError.self) { try SQLiteRepository.open(path: path) }
        #expect(error.description.contains("older than that of 2026-11-27 (commit 7e79804)"))
        #expect(error.description.contains("'2026-11-25 ledger'"))
        #expect(!error.description.contains("'2026-11-22 sessions'"))
        let tables = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables == ["grdb_migrations", "sites"])
    }

    @Test func aPostgreSQLDatabaseOlderThanTheReleaseIsRefusedUnchanged() async throws {
        let url = try await ThrowawayPostgres.shared.freshDatabaseURL()
        let (status, output) = try await ThrowawayPostgres.offThePool {
            try UpgradeFixtureTests.run(
                "/usr/bin/env",
                [
                    "psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c",
                    """
                    CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL);
                    INSERT INTO schema_migrations VALUES ('2026-11-22 directory', 0);
                    CREATE TABLE sites (id TEXT PRIMARY KEY);
                    """,
                ])
        }
        try #require(status == 0, "psql: \(output)")
        let error = await #expect(throws: MigrationError.self) { _ = try await PostgresRepository.connect(url: url) }
        #expect(error?.description.contains("'2026-11-26 directory version'") == true)
        let (_, tables) = try await ThrowawayPostgres.offThePool {
            try UpgradeFixtureTests.run(
                "/usr/bin/env",
                ["psql", url, "-At", "-c", "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"])
        }
        #expect(tables.split(separator: "\n") == ["schema_migrations", "sites"])
    }

    // MARK: - A schema as lines of text

    /// Every column, index, foreign key, check and trigger of a database, one per line, in an
    /// order of their own (not of creation); what differs only in spelling is made the same.
    static func schema(of repository: any ServerRepository) async throws -> [String] {
        let storage = try #require(repository as? any SQLStorage)
        return try await storage.database.read { tx in
            try await tx.dialect == .sqlite ? sqliteSchema(tx) : postgresSchema(tx)
        }
    }

    static func sqliteSchema(_ tx: any SQLTransaction) async throws -> [String] {
        var lines: [String] = []
        let tables = try await tx.query(
            """
            SELECT name, sql FROM sqlite_master WHERE type = 'table'
            AND name NOT IN ('sqlite_sequence', 'grdb_migrations') ORDER BY name
            """
        ).map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)) }
        for (table, sql) in tables {
            for row in try await tx.query(
                "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(\(table))")
            {
                lines.append("column \(table) \(try row.values.map { "\($0)" }.joined(separator: " "))")
            }
            for check in checks(in: sql) { lines.append("check \(table) \(check)") }
            for row in try await tx.query(
                "SELECT \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(\(table))")
            {
                lines.append("foreign key \(table) \(try row.values.map { "\($0)" }.joined(separator: " "))")
            }
            for index in try await tx.query("SELECT name, \"unique\", origin, partial FROM pragma_index_list(\(table))")
            {
                let name = try index.decode(0, as: String.self)
                let origin = try index.decode(2, as: String.self)
                let values = try index.values
                let columns = try await tx.query("SELECT name FROM pragma_index_info(\(name)) ORDER BY seqno")
                    .map { try $0.decode(0, as: String?.self) ?? "(expression)" }
                // SQLite names the indexes of UNIQUE and PRIMARY KEY constraints itself.
                lines.append(
                    "index \(table) \(origin == "c" ? name : "(\(origin))") unique \(values[1]) "
                        + "partial \(values[3]) on \(columns)")
            }
        }
        for row in try await tx.query("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'") {
            lines.append(
                "trigger \(try row.decode(0, as: String.self)) on \(try row.decode(1, as: String.self)): "
                    + normalized(try row.decode(2, as: String.self)))
        }
        return lines.sorted()
    }

    static func postgresSchema(_ tx: any SQLTransaction) async throws -> [String] {
        let queries: [(String, AttendanceStorage.SQL)] = [
            (
                "column",
                """
                SELECT table_name::text, ordinal_position::text, column_name::text, data_type::text,
                    is_nullable::text, coalesce(column_default::text, 'null')
                FROM information_schema.columns WHERE table_schema = 'public'
                """
            ),
            (
                "constraint",
                """
                SELECT conrelid::regclass::text, conname::text, pg_get_constraintdef(oid)
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                """
            ),
            ("index", "SELECT indexname::text, indexdef FROM pg_indexes WHERE schemaname = 'public'"),
            ("trigger", "SELECT tgname::text, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal"),
            ("function", "SELECT proname::text, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace"),
            ("sequence", "SELECT sequencename::text, data_type::text FROM pg_sequences WHERE schemaname = 'public'"),
        ]
        var lines: [String] = []
        for (kind, query) in queries {
            for row in try await tx.query(query) {
                lines.append("\(kind) \(try row.values.map { normalized("\($0)") }.joined(separator: " | "))")
            }
        }
        return lines.sorted()
    }

    /// The CHECK constraints in a table's CREATE TABLE text, normalized.
    static func checks(in sql: String) -> [String] {
        let text = Array(normalized(sql))
        var found: [String] = []
        var index = 0
        while index + 5 < text.count {
            guard String(text[index..<index + 6]) == "check(" else {
                index += 1
                continue
            }
            var depth = 0
            var end = index + 5
            repeat {
                if text[end] == "(" { depth += 1 }
                if text[end] == ")" { depth -= 1 }
                end += 1
            } while depth > 0 && end < text.count
            found.append(String(text[index..<end]))
            index = end
        }
        return found.sorted()
    }

    /// Lower case, no quotes around names, no white space: the spelling a rename or a dump changes.
    static func normalized(_ sql: String) -> String {
        String(sql.lowercased().filter { !$0.isWhitespace && $0 != "\"" })
    }
}
