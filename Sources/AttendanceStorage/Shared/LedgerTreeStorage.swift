import AttendanceModels
import AttendanceRules
import Foundation

/// The ledger's Merkle tree: what the sealer appends to it and what proofs read from it.
public protocol LedgerTreeRepository: Sendable {
    /// Appends the sealed rows the tree lacks (up to `limit`), in seal order, and signs one
    /// checkpoint of the new size with `signer`. One process at a time; nil when nothing grew.
    func growLedgerTree(limit: Int, signer: NoteSigner, now: Date) async throws -> LedgerTreeGrowth?
    /// From now on, seals and grows the tree in the transaction of each group commit of device
    /// writes, and calls `grown` with what it did once that has committed (before the group's
    /// requests are answered): one checkpoint a group commit. False where device writes don't
    /// commit in groups (PostgreSQL: the sealer's rounds do it).
    func sealInEachGroupCommit(
        limit: Int, signer: NoteSigner, now: @escaping @Sendable () -> Date,
        grown: @escaping @Sendable (_ sealed: Int, _ growth: LedgerTreeGrowth?) -> Void
    ) -> Bool
    /// Seals up to `limit` rows, then grows the tree as `growLedgerTree`, in one transaction.
    func sealAndGrowLedger(limit: Int, signer: NoteSigner, now: Date) async throws
        -> (sealed: Int, growth: LedgerTreeGrowth?)
    /// The newest checkpoint (nil before the first row is sealed).
    func latestCheckpoint() async throws -> StoredCheckpoint?
    /// The checkpoint signed at exactly `size` leaves.
    func checkpoint(size: Int64) async throws -> StoredCheckpoint?
    /// Checkpoints after `size`, oldest first.
    func checkpoints(after size: Int64, limit: Int) async throws -> [StoredCheckpoint]
    /// The hashes of these nodes, as stored (a node the tree hasn't reached is absent).
    func treeNodes(_ nodes: [MerkleTree.Node]) async throws -> [MerkleTree.Node: MerkleTree.Hash]
    /// The stored leaf hashes of tree indexes `range`, by index.
    func treeLeaves(_ range: Range<Int64>) async throws -> [Int64: MerkleTree.Hash]
    /// The newest seal's sequence (0 when nothing is sealed).
    func latestLedgerSeal() async throws -> Int64
    /// When seal `sequence` was made (nil when there is none).
    func sealTime(sequence: Int64) async throws -> Date?
    /// Rows with more than one seal, one of them after seal `sequence` (none, unless the seals were
    /// written behind the server's back).
    func rowsSealedTwice(after sequence: Int64, limit: Int) async throws -> [Int64]
    /// The leaf of the row with this id (nil when the row isn't in the tree yet).
    func treeLeaf(eventId: Int64) async throws -> Int64?
    /// Keeps a witness's cosignature; false when it was kept already.
    func storeCosignature(_ cosignature: StoredCosignature) async throws -> Bool
    /// Each witness's cosignature of the largest tree it cosigned.
    func latestCosignatures() async throws -> [StoredCosignature]
    /// `actor`'s rows about `user` after row `id` that are among the first `size` leaves, with
    /// their leaf index, by id.
    func ledgerRows(
        of user: UserID, actor: LedgerActor, after id: Int64, leaves size: Int64, limit: Int
    ) async throws -> [(event: LedgerEvent, leaf: Int64)]
    /// The first row of `actor`'s for each of these events, with its seal's sequence (nil: not
    /// sealed yet); an event with no row is absent.
    func deviceEventRows(actor: LedgerActor, events: [DeviceEventRef]) async throws
        -> [DeviceEventRef: (event: LedgerEvent, sequence: Int64?)]
    /// The first checkpoint whose tree holds leaf `leaf` (nil while the tree hasn't reached it).
    func firstCheckpoint(holding leaf: Int64) async throws -> StoredCheckpoint?
    /// Keeps a phone's report that the ledger did not match its receipts.
    func storeLedgerWarning(_ warning: LedgerWarning) async throws
    /// The newest reports, newest first.
    func ledgerWarnings(limit: Int) async throws -> [LedgerWarning]
}

extension SQLStorage {
    public func sealInEachGroupCommit(
        limit: Int, signer: NoteSigner, now: @escaping @Sendable () -> Date,
        grown: @escaping @Sendable (_ sealed: Int, _ growth: LedgerTreeGrowth?) -> Void
    ) -> Bool {
        database.closeEachGroupCommit { tx in
            let (sealed, growth) = try await Self.sealAndGrow(tx, limit: limit, signer: signer, now: now())
            return { grown(sealed, growth) }
        }
    }

    public func growLedgerTree(limit: Int, signer: NoteSigner, now: Date) async throws -> LedgerTreeGrowth? {
        try await database.write { tx in try await Self.grow(tx, limit: limit, signer: signer, now: now) }
    }

    static func grow(_ tx: any SQLTransaction, limit: Int, signer: NoteSigner, now: Date) async throws
        -> LedgerTreeGrowth?
    {
        if tx.dialect == .postgresql,
            try await tx.value("SELECT pg_try_advisory_xact_lock(731003)", as: Bool.self) != true
        {
            return nil
        }
        let size =
            try await tx.value("SELECT COALESCE(MAX(tree_size), 0) FROM ledger_checkpoints", as: Int64.self)
            ?? 0
        let rows = try await tx.query(
            """
            SELECT s.sequence, s.event_id, \(raw: LedgerRows.columns(alias: "e")) FROM ledger_seals s
            LEFT JOIN ledger_events e ON e.id = s.event_id
            WHERE s.sequence > \(size) ORDER BY s.sequence LIMIT \(limit)
            """)
        guard !rows.isEmpty else { return nil }
        let edgeNodes = MerkleTree.nodes(covering: 0..<size)
        let stored = try await Self.nodes(tx, edgeNodes)
        var appender = MerkleAppender(
            size: size,
            edge: try edgeNodes.map { node in
                guard let hash = stored[node] else {
                    throw RepositoryError(
                        kind: .conflict, detail: "the ledger tree lacks node \(node.level)/\(node.index)")
                }
                return hash
            })
        var events: [LedgerEvent] = []
        for row in rows {
            let sequence: Int64 = try row.decode(0)
            let eventId: Int64 = try row.decode(1)
            guard sequence == appender.size + 1 else {
                throw RepositoryError(
                    kind: .conflict, detail: "seal \(appender.size + 1) is missing: the seals go on at \(sequence)")
            }
            guard let event = try LedgerRows.event(row, at: 2) else {
                throw RepositoryError(
                    kind: .conflict, detail: "row \(eventId), sealed at \(sequence), is missing (deleted)")
            }
            appender.append(leafHash: LedgerLeaf.hash(eventId: eventId, contentHash: event.hash))
            events.append(event)
        }
        for slice in stride(from: 0, to: appender.written.count, by: 500) {
            let values = appender.written[slice..<min(slice + 500, appender.written.count)].map {
                node, hash -> SQL in "(\(node.level), \(node.index), \(Data(hash)))"
            }
            try await tx.execute(
                "INSERT INTO ledger_tree (level, idx, hash) VALUES \(SQL.joined(values, separator: ", "))")
        }
        let checkpoint = Checkpoint(origin: signer.name, size: appender.size, rootHash: appender.root)
        let note = try signer.sign(checkpoint.text)
        try await tx.execute(
            """
            INSERT INTO ledger_checkpoints (tree_size, note, signed_at)
            VALUES (\(checkpoint.size), \(note), \(now))
            """)
        var nodes = stored
        for (node, hash) in appender.written { nodes[node] = hash }
        return LedgerTreeGrowth(
            checkpoint: StoredCheckpoint(checkpoint: checkpoint, note: note, signedAt: now), from: size,
            rows: events, nodes: nodes)
    }

    public func latestCheckpoint() async throws -> StoredCheckpoint? {
        try await database.read { tx in
            try await Self.checkpoints(tx, "ORDER BY tree_size DESC LIMIT 1").first
        }
    }

    public func checkpoint(size: Int64) async throws -> StoredCheckpoint? {
        try await database.read { tx in try await Self.checkpoints(tx, "WHERE tree_size = \(size)").first }
    }

    public func checkpoints(after size: Int64, limit: Int) async throws -> [StoredCheckpoint] {
        try await database.read { tx in
            try await Self.checkpoints(tx, "WHERE tree_size > \(size) ORDER BY tree_size LIMIT \(limit)")
        }
    }

    public func treeNodes(_ nodes: [MerkleTree.Node]) async throws -> [MerkleTree.Node: MerkleTree.Hash] {
        try await database.read { tx in try await Self.nodes(tx, nodes) }
    }

    public func treeLeaves(_ range: Range<Int64>) async throws -> [Int64: MerkleTree.Hash] {
        try await database.read { tx in
            var leaves: [Int64: MerkleTree.Hash] = [:]
            for row in try await tx.query(
                """
                SELECT idx, hash FROM ledger_tree
                WHERE level = 0 AND idx >= \(range.lowerBound) AND idx < \(range.upperBound)
                """)
            {
                leaves[try row.decode(0)] = Array(try row.decode(1, as: Data.self))
            }
            return leaves
        }
    }

    public func latestLedgerSeal() async throws -> Int64 {
        try await database.read { tx in
            try await tx.value("SELECT COALESCE(MAX(sequence), 0) FROM ledger_seals", as: Int64.self) ?? 0
        }
    }

    public func sealTime(sequence: Int64) async throws -> Date? {
        try await database.read { tx in
            try await tx.value("SELECT sealed_at FROM ledger_seals WHERE sequence = \(sequence)", as: Date.self)
        }
    }

    public func rowsSealedTwice(after sequence: Int64, limit: Int) async throws -> [Int64] {
        try await database.read { tx in
            // Every seal: one pass over the table. The tail's (the server's check): each of its seals
            // looked up by row, not the whole table every five minutes.
            try await tx.query(
                sequence == 0
                    ? "SELECT event_id FROM ledger_seals GROUP BY event_id HAVING COUNT(*) > 1 LIMIT \(limit)"
                    : """
                    SELECT s.event_id FROM ledger_seals s WHERE s.sequence > \(sequence) AND EXISTS (
                        SELECT 1 FROM ledger_seals o WHERE o.event_id = s.event_id AND o.sequence <> s.sequence)
                    LIMIT \(limit)
                    """
            ).map { try $0.decode(0) }
        }
    }

    public func treeLeaf(eventId: Int64) async throws -> Int64? {
        try await database.read { tx in
            try await tx.value("SELECT sequence - 1 FROM ledger_seals WHERE event_id = \(eventId)", as: Int64.self)
        }
    }

    static func nodes(_ tx: any SQLTransaction, _ nodes: [MerkleTree.Node]) async throws
        -> [MerkleTree.Node: MerkleTree.Hash]
    {
        var found: [MerkleTree.Node: MerkleTree.Hash] = [:]
        let unique = Array(Set(nodes))
        for slice in stride(from: 0, to: unique.count, by: 200) {
            let conditions = unique[slice..<min(slice + 200, unique.count)].map { node -> SQL in
                "(level = \(node.level) AND idx = \(node.index))"
            }
            for row in try await tx.query(
                "SELECT level, idx, hash FROM ledger_tree WHERE \(SQL.joined(conditions, separator: " OR "))")
            {
                let node = MerkleTree.Node(level: try row.decode(0), index: try row.decode(1))
                found[node] = Array(try row.decode(2, as: Data.self))
            }
        }
        return found
    }

    static func checkpoints(_ tx: any SQLTransaction, _ tail: SQL) async throws -> [StoredCheckpoint] {
        try await tx.query("SELECT note, signed_at FROM ledger_checkpoints \(tail)").map { row in
            let note: String = try row.decode(0)
            let parsed = try SignedNote.parse(note)
            return StoredCheckpoint(
                checkpoint: try Checkpoint(text: parsed.text), note: note, signedAt: try row.decode(1))
        }
    }
}
