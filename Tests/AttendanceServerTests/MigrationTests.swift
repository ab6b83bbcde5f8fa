import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
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
        #expect(names.last == "2026-11-27 one naming convention")
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
        #expect(recorded.map(\.0) == Migrations.all.map(\.name).sorted())
        // Recorded when they ran (the database's clock), not adopted from an earlier runner.
        #expect(recorded.allSatisfy { $0.1 > 1_700_000_000 })
    }
}
