import AttendanceModels

/// Rebuilds the ledger's Merkle tree from the rows themselves, in seal order (`attendance ledger
/// verify`), and checks it against checkpoints signed earlier: the newest one the database holds
/// and any a witness, an auditor or an employee kept. A copy of the database can recompute every
/// hash it stores, but not a signature: a row changed, deleted, inserted or moved before a signed
/// size changes the root at that size. Pure; fed a page at a time.
public struct LedgerTreeVerifier: Sendable {
    /// A signed checkpoint to hold the rows to, and where it came from (for the report).
    public struct Target: Sendable, Equatable {
        public var checkpoint: Checkpoint
        public var source: String

        public init(checkpoint: Checkpoint, source: String) {
            self.checkpoint = checkpoint
            self.source = source
        }
    }

    /// Only the right edge: a verifier of 10 million rows keeps 24 hashes, not 20 million nodes.
    private var appender = MerkleAppender(size: 0, edge: [], keepingWritten: false)
    private var pending: [Target]
    public private(set) var problems: [String] = []
    public private(set) var matched: [Target] = []

    public init(targets: [Target]) {
        pending = targets.sorted { $0.checkpoint.size < $1.checkpoint.size }
        checkReached()
    }

    public var size: Int64 { appender.size }

    /// The next row in seal order: its id, the content hash its columns give now, and the leaf the
    /// database's tree holds for it (nil when the tree hasn't reached it). A stored leaf that differs
    /// names the row exactly; a rewrite that recomputed the tree too shows at the next checkpoint.
    public mutating func append(eventId: Int64, contentHash: String, storedLeaf: MerkleTree.Hash?) {
        let leaf = LedgerLeaf.hash(eventId: eventId, contentHash: contentHash)
        if let storedLeaf, storedLeaf != leaf {
            problems.append(
                "tree index \(appender.size) (row \(eventId)): the row no longer hashes to its leaf in the tree "
                    + "(changed after it was added)")
        }
        appender.append(leafHash: leaf)
        checkReached()
    }

    /// After the last row: a checkpoint larger than the rows can't be met (rows were deleted).
    public mutating func finish() {
        for target in pending {
            problems.append(
                "\(target.source) signs \(target.checkpoint.size) rows but the ledger has \(appender.size) "
                    + "sealed: rows \(appender.size) to \(target.checkpoint.size - 1) of the tree were deleted")
        }
        pending = []
    }

    private mutating func checkReached() {
        while let next = pending.first, next.checkpoint.size == appender.size {
            pending.removeFirst()
            if next.checkpoint.size == 0 || appender.root == next.checkpoint.rootHash {
                matched.append(next)
            } else {
                let earlier = matched.last.map { "after the \($0.checkpoint.size) rows \($0.source) signs, " } ?? ""
                problems.append(
                    "the first \(next.checkpoint.size) rows do not hash to the root \(next.source) signs: "
                        + "\(earlier)a row before tree index \(next.checkpoint.size) was changed, inserted, "
                        + "deleted or moved")
            }
        }
    }
}
