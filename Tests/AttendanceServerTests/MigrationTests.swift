import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import GRDB
import Testing

@testable import AttendanceServer

/// One list of migrations for both databases, each applied once and recorded.
@Suite struct MigrationTests {
    @Test func theListIsNamedOnceInOrder() {
        let names = Migrations.all.map(\.name)
        #expect(Set(names).count == names.count)
        // Appended in the order they shipped: their dates never go back.
        let dates = names.map { $0.prefix(10) }
        #expect(dates == dates.sorted())
        #expect(
            names == [
                "2026-11-27 one naming convention", "2026-11-27 typed timesheet settings",
                "2026-11-27 used one-time codes", "2026-11-27 server secrets", "2026-11-27 account policy",
                "2026-11-27 device app version", "2026-11-27 one index name", "2026-11-27 account language",
                "2026-11-27 console forms sent once", "2026-11-27 sign-in failures", "2026-11-27 ledger merkle tree",
                "2026-11-27 personal keys", "2026-11-27 ledger cosignatures", "2026-11-27 ledger warnings",
                "2026-11-28 site surveys",
            ])
        // The release's schema stands for the migrations before them, the first of the list included.
        #expect(ReleaseSchema.covers.last == names.first)
        #expect(Set(ReleaseSchema.release).isDisjoint(with: names))
    }

    @Test(arguments: Backend.allCases) func aNewDatabaseRecordsEveryMigrationOnce(backend: Backend) async throws {
        let (repository, reopen) = try await backend.makeStore()
        repository.shutdown()
        let again = try await reopen()
        defer { again.shutdown() }
        let storage = try #require(again as? any SQLStorage)
        let recorded = try await storage.database.read { tx in
            try await tx.query("SELECT name, applied_at FROM schema_migrations ORDER BY name").map {
                (try $0.decode(0, as: String.self), try $0.decode(1, as: Double.self))
            }
        }
        #expect(recorded.map(\.0) == Set(ReleaseSchema.covers + Migrations.all.map(\.name)).sorted())
        // Recorded when they ran (the database's clock), not adopted from an earlier runner.
        #expect(recorded.allSatisfy { $0.1 > 1_700_000_000 })
    }

    /// The settings move to their typed tables or the upgrade stops, naming what it could not move:
    /// a row of a kind no table takes is never dropped with the old table.
    @Test func aSettingOfAnUnknownKindStopsTheMoveToTypedTables() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("typed-settings-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let older = try SQLiteRepository.open(path: path, migratingThrough: "2026-11-27 one naming convention")
        try older.writer.writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    INSERT INTO timesheet_settings (kind, id, site_id, date, body, updated_at)
                    VALUES ('holiday', 'hq/2026-12-25', 'hq', '2026-12-25', '{"name":"Christmas Day"}', 1),
                           ('overtimeBank', 'alice', NULL, NULL, '{"hours":12}', 1)
                    """)
        }
        let error = try #require(throws: RepositoryError.self) { try SQLiteRepository.open(path: path) }
        #expect(error.detail.contains("1 rows of kind 'overtimeBank'"))
        // Nothing of the move stayed: the old table and its rows are as they were.
        let rows = try older.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timesheet_settings") }
        #expect(rows == 2)
    }
}
