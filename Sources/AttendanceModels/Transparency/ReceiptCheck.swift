import Foundation

/// A receipt for one ledger row of this phone's (LEDGER.md, "Receipts"): the row's id, its leaf
/// index, the exact text its content hash covers (`ledger-v1\n<kind>\n<session>\n<employee>\n<actor>
/// \n<received>\n<device time>\n<payload>\n<personal digest>`) and its inclusion proof in the tree
/// of the checkpoint it came with.
public struct LedgerReceipt: Hashable, Sendable, Codable {
    public var rowId: Int64
    public var leafIndex: Int64
    public var entry: String
    public var proof: [MerkleTree.Hash]

    public init(rowId: Int64, leafIndex: Int64, entry: String, proof: [MerkleTree.Hash]) {
        self.rowId = rowId
        self.leafIndex = leafIndex
        self.entry = entry
        self.proof = proof
    }

    /// The entry's lines: 1 kind, 2 session key, 3 employee, 4 actor, 5 received, 6 device time.
    public func line(_ index: Int) -> Substring? {
        let lines = entry.split(separator: "\n", maxSplits: 8, omittingEmptySubsequences: false)
        return index < lines.count ? lines[index] : nil
    }
}

/// What the phone does with a page of receipts: the checkpoint's signature under the key it pinned,
/// the checkpoint's consistency with the last one it accepted (`WitnessRules`: no rollback, no
/// fork), and each receipt's proof from its entry's hash to the checkpoint's root, for one of its
/// own events. Pure: the ports fetch, this decides.
public enum ReceiptCheck {
    public enum Outcome: Equatable, Sendable {
        /// Every receipt holds; `checkpoint` is the new last one.
        case verified(Checkpoint)
        /// A consistency proof from the last checkpoint's size to the new one's is needed first.
        case needConsistency(from: Int64, to: Int64)
        /// The server showed something a faithful ledger can't: what, for the tamper warning.
        case tampered(String)
    }

    /// `note`: the checkpoint the receipts were proved against; `actor`: this phone's
    /// (`device:<id>`); `last`: the checkpoint accepted before (nil the first time).
    public static func check(
        note: String, receipts: [LedgerReceipt], key: NoteVerifier, actor: String, last: Checkpoint?,
        consistency: [MerkleTree.Hash]?
    ) -> Outcome {
        let checkpoint: Checkpoint
        do {
            checkpoint = try Checkpoint.open(note, verifier: key, origin: last?.origin)
        } catch {
            return .tampered("the checkpoint does not verify under the ledger key this phone pinned: \(error)")
        }
        switch WitnessRules.decide(last: last, next: checkpoint, proof: consistency) {
        case .needProof(let from, let to): return .needConsistency(from: from, to: to)
        case .refuse(let why): return .tampered(why)
        case .cosign, .unchanged: break
        }
        for receipt in receipts {
            guard receipt.line(4) == Substring(actor) else {
                return .tampered("the receipt for row \(receipt.rowId) is not of this phone's events")
            }
            let leaf = LedgerLeaf.hash(eventId: receipt.rowId, contentHash: SHA256.hex(receipt.entry))
            guard
                MerkleProof.verifyInclusion(
                    leafHash: leaf, index: receipt.leafIndex, size: checkpoint.size, proof: receipt.proof,
                    root: checkpoint.rootHash)
            else {
                return .tampered(
                    "row \(receipt.rowId)'s proof does not lead to the root of the checkpoint of "
                        + "\(checkpoint.size) rows"
                )
            }
        }
        return .verified(checkpoint)
    }
}
