import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository {
    public func latestLedgerID() async throws -> Int64 {
        try await writer.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(id), 0) FROM ledger_events")) ?? 0
        }
    }

    public func ledgerSessionKeys(after id: Int64, limit: Int) async throws -> [(id: Int64, sessionKey: SessionKey?)] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, session_key FROM ledger_events WHERE id > ? ORDER BY id LIMIT ?"),
                arguments: [id, limit]
            ).map { row in (row["id"], (row["session_key"] as String?).map { SessionKey($0) }) }
        }
    }

}
