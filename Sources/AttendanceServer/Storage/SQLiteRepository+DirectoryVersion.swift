import Foundation
import GRDB

extension SQLiteRepository {

    public func directoryVersion() async throws -> Int64 {
        try await writer.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM directory_version WHERE id = 1")) ?? 0
        }
    }
}
