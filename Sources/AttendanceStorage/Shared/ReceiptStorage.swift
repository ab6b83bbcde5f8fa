import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func ledgerRows(
        of user: UserID, actor: LedgerActor, after id: Int64, leaves size: Int64, limit: Int
    ) async throws -> [(event: LedgerEvent, leaf: Int64)] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT s.sequence, \(raw: LedgerRows.columns(alias: "e"))
                FROM ledger_events e JOIN ledger_seals s ON s.event_id = e.id
                WHERE e.user_id = \(user) AND e.actor = \(actor.rawValue) AND e.id > \(id) AND s.sequence <= \(size)
                ORDER BY e.id LIMIT \(limit)
                """
            ).compactMap { row in
                guard let event = try LedgerRows.event(row, at: 1) else { return nil }
                return (event, try row.decode(0, as: Int64.self) - 1)
            }
        }
    }

    public func deviceEventRows(actor: LedgerActor, events: [DeviceEventRef]) async throws
        -> [DeviceEventRef: (event: LedgerEvent, sequence: Int64?)]
    {
        guard !events.isEmpty else { return [:] }
        return try await database.read { tx in
            var found: [DeviceEventRef: (event: LedgerEvent, sequence: Int64?)] = [:]
            // One indexed lookup each (`ledger_by_session`): a batch holds at most 500.
            for ref in Set(events) {
                let rows = try await tx.query(
                    """
                    SELECT s.sequence, \(raw: LedgerRows.columns(alias: "e"))
                    FROM ledger_events e LEFT JOIN ledger_seals s ON s.event_id = e.id
                    WHERE \(LedgerRows.same(ref, actor: actor)) ORDER BY e.id LIMIT 1
                    """)
                guard let row = rows.first, let event = try LedgerRows.event(row, at: 1) else { continue }
                found[ref] = (event, try row.decode(0, as: Int64?.self))
            }
            return found
        }
    }

    public func firstCheckpoint(holding leaf: Int64) async throws -> StoredCheckpoint? {
        try await database.read { tx in
            try await Self.checkpoints(tx, "WHERE tree_size > \(leaf) ORDER BY tree_size LIMIT 1").first
        }
    }

    public func storeLedgerWarning(_ warning: LedgerWarning) async throws {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO ledger_warnings (device_id, user_id, problem, checkpoint, reported_at)
                VALUES (\(warning.deviceId), \(warning.userId), \(warning.problem), \(warning.checkpoint),
                        \(warning.reportedAt))
                """)
        }
    }

    public func ledgerWarnings(limit: Int) async throws -> [LedgerWarning] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT device_id, user_id, problem, checkpoint, reported_at FROM ledger_warnings
                ORDER BY id DESC LIMIT \(limit)
                """
            ).map { row in
                LedgerWarning(
                    deviceId: try row[0], userId: try row[1], problem: try row[2], checkpoint: try row[3],
                    reportedAt: try row[4])
            }
        }
    }
}
