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

/// A receipt as a device event's answer carries it: proved into the first signed checkpoint whose
/// tree holds the row, so the first answer and every replay of it carry the same one.
public struct AnswerReceipt: Hashable, Sendable {
    public var receipt: LedgerReceipt
    /// The signed checkpoint the proof leads to.
    public var checkpoint: String

    public init(receipt: LedgerReceipt, checkpoint: String) {
        self.receipt = receipt
        self.checkpoint = checkpoint
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

    /// What became of receipts that came in answers, checked against the checkpoint the phone
    /// accepted last from the pages.
    public enum AnswerOutcome: Equatable, Sendable {
        /// The answers' checkpoint is part of the accepted log and these rows' page receipts
        /// show the same entries; the rest wait for the pages to reach them.
        case confirmed([Int64])
        /// The answers' checkpoint is newer than the accepted one: checked after the next page.
        case later
        /// A consistency proof from the answers' checkpoint to the accepted one is needed first.
        case needConsistency(from: Int64, to: Int64)
        case tampered(String)
    }

    /// Receipts that came in answers, all proved into checkpoint `note`: the signature and each
    /// proof (as a page's), then that the checkpoint is part of the log the phone accepted
    /// (`accepted`, with a consistency proof from the smaller: no fork, no other origin), then
    /// that each row's page receipt, where the phone has one (`kept`: entries by row id), is the
    /// same entry: a row rewritten after it was answered is caught here.
    public static func answered(
        note: String, receipts: [LedgerReceipt], key: NoteVerifier, actor: String, accepted: Checkpoint,
        consistency: [MerkleTree.Hash]?, kept: [Int64: String]
    ) -> AnswerOutcome {
        let checkpoint: Checkpoint
        switch check(note: note, receipts: receipts, key: key, actor: actor, last: nil, consistency: nil) {
        case .verified(let verified): checkpoint = verified
        case .tampered(let why): return .tampered("an answer's receipt: \(why)")
        case .needConsistency: return .tampered("an answer's receipt could not be checked")
        }
        if checkpoint.size > accepted.size, checkpoint.origin == accepted.origin { return .later }
        switch WitnessRules.decide(last: checkpoint, next: accepted, proof: consistency) {
        case .needProof(let from, let to): return .needConsistency(from: from, to: to)
        case .refuse(let why):
            return .tampered(
                "the checkpoint of \(checkpoint.size) rows an answer carried is not part of the log: \(why)")
        case .cosign, .unchanged: break
        }
        var confirmed: [Int64] = []
        for receipt in receipts {
            guard let entry = kept[receipt.rowId] else { continue }
            guard entry == receipt.entry else {
                return .tampered("row \(receipt.rowId) is not the row its answer's receipt showed")
            }
            confirmed.append(receipt.rowId)
        }
        return .confirmed(confirmed)
    }
}
