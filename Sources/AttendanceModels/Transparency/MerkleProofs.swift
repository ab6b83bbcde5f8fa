/// Checking RFC 9162's proofs (sections 2.1.3.2 and 2.1.4.2) with nothing but the hashes: what
/// the phone does with a receipt and a witness with two checkpoints.
public enum MerkleProof {
    /// Whether `proof` shows the leaf with hash `leafHash` at `index` in the tree of `size` leaves
    /// whose root is `root`.
    public static func verifyInclusion(
        leafHash: MerkleTree.Hash, index: Int64, size: Int64, proof: [MerkleTree.Hash], root: MerkleTree.Hash
    ) -> Bool {
        guard index >= 0, index < size else { return false }
        var (fn, sn) = (index, size - 1)
        var hash = leafHash
        for sibling in proof {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                hash = MerkleTree.nodeHash(sibling, hash)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                hash = MerkleTree.nodeHash(hash, sibling)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && hash == root
    }

    /// Whether `proof` shows the tree of `oldSize` leaves with root `oldRoot` is the first
    /// `oldSize` leaves of the tree of `newSize` with root `newRoot`.
    public static func verifyConsistency(
        oldSize: Int64, oldRoot: MerkleTree.Hash, newSize: Int64, newRoot: MerkleTree.Hash,
        proof: [MerkleTree.Hash]
    ) -> Bool {
        guard oldSize >= 0, oldSize <= newSize else { return false }
        if oldSize == newSize { return proof.isEmpty && oldRoot == newRoot }
        if oldSize == 0 { return proof.isEmpty }
        var path = proof
        if oldSize & (oldSize - 1) == 0 { path.insert(oldRoot, at: 0) }
        guard let first = path.first else { return false }
        var (fn, sn) = (oldSize - 1, newSize - 1)
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var (fr, sr) = (first, first)
        for sibling in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleTree.nodeHash(sibling, fr)
                sr = MerkleTree.nodeHash(sibling, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = MerkleTree.nodeHash(sr, sibling)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && fr == oldRoot && sr == newRoot
    }
}

/// Appends leaves to a tree kept as stored nodes: from the hashes of the nodes covering the tree
/// now (its right edge, `MerkleTree.nodes(covering: 0..<size)`), each leaf's hash yields the nodes
/// it completes, to be written, and the new right edge and root. Nothing is recomputed.
public struct MerkleAppender: Sendable {
    public private(set) var size: Int64
    /// The right edge: one hash per node covering `0..<size`, largest first.
    public private(set) var edge: [MerkleTree.Hash]
    /// The nodes completed since this value was made, leaves included, in the order completed
    /// (empty when made with `keepingWritten: false`: a verifier that only wants roots).
    public private(set) var written: [(node: MerkleTree.Node, hash: MerkleTree.Hash)] = []
    private let keepsWritten: Bool

    /// `edge` holds the hashes of `MerkleTree.nodes(covering: 0..<size)` in that order.
    public init(size: Int64, edge: [MerkleTree.Hash], keepingWritten: Bool = true) {
        precondition(edge.count == MerkleTree.nodes(covering: 0..<size).count, "a right edge of the wrong length")
        self.size = size
        self.edge = edge
        self.keepsWritten = keepingWritten
    }

    public mutating func append(leafHash: MerkleTree.Hash) {
        var hash = leafHash
        var node = MerkleTree.Node(level: 0, index: size)
        if keepsWritten { written.append((node, hash)) }
        // A node with an odd index completes its parent with its left sibling, the edge's last.
        while node.index & 1 == 1, let left = edge.popLast() {
            hash = MerkleTree.nodeHash(left, hash)
            node = MerkleTree.Node(level: node.level + 1, index: node.index >> 1)
            if keepsWritten { written.append((node, hash)) }
        }
        edge.append(hash)
        size += 1
    }

    public var root: MerkleTree.Hash { MerkleTree.fold(edge) }
}
