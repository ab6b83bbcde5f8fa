import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// The ledger's Merkle tree as a verifier sees it: the newest signed checkpoint, a leaf's inclusion
/// proof and the consistency proof between two sizes (RFC 9162), read from the stored nodes.
public struct LedgerProofService: Sendable {
    public let repository: any LedgerTreeRepository

    public init(repository: any LedgerTreeRepository) {
        self.repository = repository
    }

    public struct Inclusion: Sendable, Equatable {
        public var index: Int64
        public var treeSize: Int64
        public var leafHash: MerkleTree.Hash
        public var hashes: [MerkleTree.Hash]
    }

    /// The newest checkpoint; 404 before the first row is in the tree.
    public func latest() async throws -> StoredCheckpoint {
        guard let checkpoint = try await repository.latestCheckpoint() else {
            throw DomainError(.notFound, "Not found", "the ledger's tree is empty: no checkpoint is signed yet")
        }
        return checkpoint
    }

    /// The proof that leaf `index` is in the tree of `size` leaves (the newest checkpoint's size
    /// when nil); `size` must be a checkpoint's.
    public func inclusion(index: Int64, size: Int64?) async throws -> Inclusion {
        let size = try await checkpointSize(size, field: "size")
        guard index >= 0, index < size else {
            throw DomainError.field(
                "index", String(index), expected: "a leaf of the tree of \(size): 0 to \(size - 1)", kind: .notFound)
        }
        // The leaf itself is the one-leaf range at its index.
        let hashes = try await hashes(of: [index..<(index + 1)] + MerkleTree.inclusionRanges(index: index, size: size))
        return Inclusion(index: index, treeSize: size, leafHash: hashes[0], hashes: Array(hashes.dropFirst()))
    }

    /// The inclusion proofs of `leaves` in the tree of `size` leaves (a checkpoint's, all below
    /// it), their nodes read at once.
    public func inclusions(of leaves: [Int64], size: Int64) async throws -> [[MerkleTree.Hash]] {
        let ranges = leaves.map { MerkleTree.inclusionRanges(index: $0, size: size) }
        var hashes = try await hashes(of: ranges.flatMap { $0 })[...]
        return ranges.map { proof in
            defer { hashes = hashes.dropFirst(proof.count) }
            return Array(hashes.prefix(proof.count))
        }
    }

    /// The proof that the tree of `from` leaves is the start of the tree of `to` (both checkpoints').
    public func consistency(from: Int64, to: Int64) async throws -> [MerkleTree.Hash] {
        let to = try await checkpointSize(to, field: "to")
        guard from >= 1, from <= to else {
            throw DomainError.field("from", String(from), expected: "a tree size from 1 to \(to)", kind: .unprocessable)
        }
        return try await hashes(of: MerkleTree.consistencyRanges(old: from, new: to))
    }

    private func checkpointSize(_ size: Int64?, field: String) async throws -> Int64 {
        let latest = try await latest().checkpoint.size
        guard let size else { return latest }
        guard size >= 1, size <= latest else {
            throw DomainError.field(
                field, String(size), expected: "a tree size from 1 to \(latest), the newest checkpoint's",
                kind: .notFound)
        }
        return size
    }

    /// The ranges' hashes from the stored nodes, every one present (the tree is append-only: a
    /// size a checkpoint reached has them).
    private func hashes(of ranges: [Range<Int64>]) async throws -> [MerkleTree.Hash] {
        let nodes = try await repository.treeNodes(ranges.flatMap(MerkleTree.nodes(covering:)))
        return try ranges.map { range in
            guard let hash = MerkleTree.hash(of: range, from: nodes) else {
                throw DomainError(
                    .conflict, "Tree incomplete",
                    "the ledger's tree lacks a node of leaves \(range.lowerBound)..<\(range.upperBound): "
                        + "run `attendance ledger verify`")
            }
            return hash
        }
    }
}
