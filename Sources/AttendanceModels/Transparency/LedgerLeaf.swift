/// What one ledger row puts in the Merkle tree: the leaf `ledger-leaf-v1\n<row id>\n<content hash>`
/// (UTF-8), the content hash being the row's own (`LedgerHash.content`, hex), which covers every
/// column but the id. The tree hashes it as RFC 9162 does (`MerkleTree.leafHash`).
public enum LedgerLeaf {
    public static func data(eventId: Int64, contentHash: String) -> [UInt8] {
        Array("ledger-leaf-v1\n\(eventId)\n\(contentHash)".utf8)
    }

    public static func hash(eventId: Int64, contentHash: String) -> MerkleTree.Hash {
        MerkleTree.leafHash(data(eventId: eventId, contentHash: contentHash))
    }
}
