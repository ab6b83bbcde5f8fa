/// The ledger's Merkle tree (RFC 9162) and its signed checkpoints, append-only like the rows:
/// `ledger_tree` keeps each perfect subtree's hash once (level 0 holds the leaves, leaf `i` being
/// the row sealed at `i + 1`), `ledger_checkpoints` every signed checkpoint the sealer wrote.
enum LedgerTreeMigration {
    static func run(_ tx: any SQLTransaction) async throws {
        let sqlite = tx.dialect == .sqlite
        let bytes = sqlite ? "BLOB" : "BYTEA"
        let real = sqlite ? "REAL" : "DOUBLE PRECISION"
        try await tx.execute(
            """
            CREATE TABLE ledger_tree (level INTEGER NOT NULL, idx BIGINT NOT NULL, hash \(raw: bytes) NOT NULL,
                PRIMARY KEY (level, idx))\(raw: sqlite ? " WITHOUT ROWID" : "")
            """)
        try await tx.execute(
            """
            CREATE TABLE ledger_checkpoints (tree_size BIGINT PRIMARY KEY, note TEXT NOT NULL,
                signed_at \(raw: real) NOT NULL)
            """)
        for table in ["ledger_tree", "ledger_checkpoints"] {
            if sqlite {
                for event in ["UPDATE", "DELETE"] {
                    try await tx.execute(
                        """
                        CREATE TRIGGER \(raw: table)_append_only_\(raw: event.lowercased()) BEFORE \(raw: event)
                        ON \(raw: table) BEGIN SELECT RAISE(ABORT, 'the ledger tree is append-only'); END
                        """)
                }
            } else {
                try await tx.execute(
                    """
                    CREATE TRIGGER \(raw: table)_append_only BEFORE UPDATE OR DELETE ON \(raw: table)
                        FOR EACH ROW EXECUTE FUNCTION ledger_seals_refuse_change()
                    """)
            }
        }
    }
}
