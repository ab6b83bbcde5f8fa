import Foundation

extension SQLStorage {
    public func pendingMigrations() async throws -> [String] {
        try await database.read { tx in
            let recorded = try await tx.query("SELECT name FROM schema_migrations")
            let applied = Set(try recorded.map { try $0.decode(0, as: String.self) })
            let all = ReleaseSchema.release + Migrations.all.map(\.name)
            return all.filter { !applied.contains($0) }
        }
    }
}
