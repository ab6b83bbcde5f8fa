import Foundation

/// What a witness does with a checkpoint the log showed it (`attendance witness`; the log's
/// signature already checked): cosign it when it extends the last one the witness cosigned, as a
/// consistency proof shows; refuse a rollback, a fork or another log, naming what it saw.
public enum WitnessRules {
    public enum Decision: Equatable, Sendable {
        /// A proof from the last cosigned size is needed first.
        case needProof(from: Int64, to: Int64)
        /// Cosign `next` and keep it as the last cosigned.
        case cosign(Checkpoint)
        /// The same tree as last time: nothing new to state.
        case unchanged
        /// The log misbehaved: cosign nothing, keep the last one, alert.
        case refuse(String)
    }

    /// `last`: what the witness cosigned before (nil the first time: it trusts the first tree it
    /// sees); `proof`: a consistency proof from `last`'s size to `next`'s, once fetched.
    public static func decide(last: Checkpoint?, next: Checkpoint, proof: [MerkleTree.Hash]?) -> Decision {
        guard let last else { return .cosign(next) }
        guard next.origin == last.origin else {
            return .refuse("the checkpoint is of \"\(next.origin)\", not of \"\(last.origin)\"")
        }
        if next.size < last.size {
            return .refuse("the log went back from \(last.size) to \(next.size) rows (a rollback)")
        }
        if next.size == last.size {
            return next.rootHash == last.rootHash
                ? .unchanged
                : .refuse("the log shows two different trees of \(next.size) rows (a fork)")
        }
        guard let proof else { return .needProof(from: last.size, to: next.size) }
        guard
            MerkleProof.verifyConsistency(
                oldSize: last.size, oldRoot: last.rootHash, newSize: next.size, newRoot: next.rootHash, proof: proof)
        else {
            return .refuse(
                "the tree of \(next.size) rows does not extend the \(last.size) kept before (its proof fails)")
        }
        return .cosign(next)
    }
}
