import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository {
    public func latestLedgerID() async throws -> Int64 {
        for try await id in try await client.query(
            "SELECT COALESCE(MAX(id), 0)::bigint FROM ledger_events", logger: logger
        ).decode(Int64.self) {
            return id
        }
        return 0
    }

    public func ledgerSessionKeys(after id: Int64, limit: Int) async throws -> [(id: Int64, sessionKey: SessionKey?)] {
        var rows: [(id: Int64, sessionKey: SessionKey?)] = []
        for try await (id, key) in try await client.query(
            "SELECT id, session_key FROM ledger_events WHERE id > \(id) ORDER BY id LIMIT \(limit)", logger: logger
        ).decode((Int64, String?).self) {
            rows.append((id, key.map { SessionKey($0) }))
        }
        return rows
    }

}
