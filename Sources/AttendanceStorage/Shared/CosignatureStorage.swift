import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func storeCosignature(_ cosignature: StoredCosignature) async throws -> Bool {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO ledger_cosignatures (witness, tree_size, line, cosigned_at, received_at)
                VALUES (\(cosignature.witness), \(cosignature.treeSize), \(cosignature.line),
                        \(cosignature.cosignedAt), \(cosignature.receivedAt))
                ON CONFLICT (witness, tree_size) DO NOTHING
                """) == 1
        }
    }

    public func latestCosignatures() async throws -> [StoredCosignature] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT c.witness, c.tree_size, c.line, c.cosigned_at, c.received_at FROM ledger_cosignatures c
                WHERE c.tree_size = (SELECT MAX(tree_size) FROM ledger_cosignatures m WHERE m.witness = c.witness)
                ORDER BY c.witness
                """
            ).map { row in
                StoredCosignature(
                    witness: try row[0], treeSize: try row[1], line: try row[2], cosignedAt: try row[3],
                    receivedAt: try row[4])
            }
        }
    }
}
