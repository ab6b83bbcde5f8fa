/// The Merkle tree of RFC 9162 (Certificate Transparency 2.0, section 2.1) over a list of leaves:
/// a leaf's hash is SHA-256(0x00 ‖ leaf), an inner node's SHA-256(0x01 ‖ left ‖ right), and a tree
/// of n leaves splits at the largest power of two below n. Pure: the tree's stored nodes come in
/// through `node`, so the same code serves the server's tables, the phone and the tests.
///
/// A **node** here is a perfect subtree: level `l` and index `i` hash the leaves
/// `i·2^l ..< (i+1)·2^l`. Every hash a proof needs is a range of leaves that splits into a few
/// such nodes (`nodes(covering:)`), so a store that keeps each node once answers any proof with
/// O(log n) reads, and an append writes O(1) nodes on average (`MerkleAppender`).
public enum MerkleTree {
    public typealias Hash = [UInt8]

    public struct Node: Hashable, Sendable {
        public var level: Int
        public var index: Int64

        public init(level: Int, index: Int64) {
            self.level = level
            self.index = index
        }

        /// The leaves this node covers.
        public var leaves: Range<Int64> { (index << level)..<((index + 1) << level) }
    }

    /// The root of the empty tree: SHA-256 of nothing.
    public static let emptyRoot: Hash = SHA256.digest([UInt8]())

    public static func leafHash<Bytes: Collection>(_ leaf: Bytes) -> Hash where Bytes.Element == UInt8 {
        SHA256.digest([0] + Array(leaf))
    }

    public static func nodeHash(_ left: Hash, _ right: Hash) -> Hash {
        var bytes: [UInt8] = [1]
        bytes.reserveCapacity(65)
        bytes += left
        bytes += right
        return SHA256.digest(bytes)
    }

    /// The largest power of two below `n` (n ≥ 2).
    static func split(_ n: Int64) -> Int64 {
        var k: Int64 = 1
        while k << 1 < n { k <<= 1 }
        return k
    }

    /// The perfect subtrees whose hashes make the hash of `leaves`, largest first; `leaves` starts
    /// at a multiple of the largest power of two not above its length, as every range in RFC 9162's
    /// proofs and roots does.
    public static func nodes(covering leaves: Range<Int64>) -> [Node] {
        var result: [Node] = []
        var start = leaves.lowerBound
        var remaining = Int64(leaves.count)
        while remaining > 0 {
            var level = 0
            while (Int64(1) << (level + 1)) <= remaining && start % (Int64(1) << (level + 1)) == 0 { level += 1 }
            result.append(Node(level: level, index: start >> level))
            start += Int64(1) << level
            remaining -= Int64(1) << level
        }
        return result
    }

    /// The hash of a range from its perfect subtrees (as `nodes(covering:)` lists them): RFC 9162
    /// combines the rightmost first.
    public static func fold(_ hashes: [Hash]) -> Hash {
        guard var hash = hashes.last else { return emptyRoot }
        for left in hashes.dropLast().reversed() { hash = nodeHash(left, hash) }
        return hash
    }

    /// The hash of `leaves` from stored nodes (`nodes(covering:)`, folded); nil when one is missing.
    public static func hash(of leaves: Range<Int64>, from stored: [Node: Hash]) -> Hash? {
        var hashes: [Hash] = []
        for node in nodes(covering: leaves) {
            guard let hash = stored[node] else { return nil }
            hashes.append(hash)
        }
        return fold(hashes)
    }

    /// The ranges whose hashes make the inclusion proof of leaf `index` in a tree of `size` leaves
    /// (RFC 9162 2.1.3.1), leaf end first.
    public static func inclusionRanges(index: Int64, size: Int64) -> [Range<Int64>] {
        precondition(index >= 0 && index < size, "leaf \(index) is not in a tree of \(size)")
        var ranges: [Range<Int64>] = []
        var (m, low, high) = (index, Int64(0), size)
        while high - low > 1 {
            let k = split(high - low)
            if m < k {
                ranges.append((low + k)..<high)
                high = low + k
            } else {
                ranges.append(low..<(low + k))
                m -= k
                low += k
            }
        }
        return ranges.reversed()
    }

    /// The ranges whose hashes make the consistency proof from `old` leaves to `new` (RFC 9162
    /// 2.1.4.1), in the proof's order. Empty when `old` is 0 or equals `new`.
    public static func consistencyRanges(old: Int64, new: Int64) -> [Range<Int64>] {
        precondition(old >= 0 && old <= new, "a tree of \(old) leaves can't grow into \(new)")
        guard old > 0, old < new else { return [] }
        var ranges: [Range<Int64>] = []
        var (m, low, high, whole) = (old, Int64(0), new, true)
        while m != high - low {
            let k = split(high - low)
            if m <= k {
                ranges.append((low + k)..<high)
                high = low + k
            } else {
                ranges.append(low..<(low + k))
                m -= k
                low += k
                whole = false
            }
        }
        if !whole { ranges.append(low..<high) }
        return ranges.reversed()
    }
}
