import AttendanceModels
import Foundation

/// The ledger's two hashes (docs/SERVER.md, "The ledger").
///
/// - A row's **content hash** covers every column but its id: kind, session, employee, actor, both
///   times, the payload, and the digest of its personal data (not the personal data itself, so
///   erasing a person keeps the row verifiable; LEDGER.md "Erasure"). It is written with the row.
/// - A **seal** chains rows in the order the sealer found them committed: seal `n` stores
///   SHA-256(seal `n−1` · n · the row's id · the row's content hash). Editing a sealed row, its
///   hash, or deleting or reordering sealed rows breaks the chain at that seal.
public enum LedgerHash {
    /// The chain's start (seal 0).
    public static let genesis = String(repeating: "0", count: 64)

    public static func content(of event: LedgerEvent) -> String {
        SHA256.hex(contentText(of: event))
    }

    /// The text the content hash covers (what a phone's receipt carries, `LedgerReceipt(of:)`).
    public static func contentText(of event: LedgerEvent) -> String {
        var text = "ledger-v1\n"
        text += event.kind.rawValue + "\n"
        text += (event.sessionKey?.rawValue ?? "") + "\n"
        text += (event.userId?.rawValue ?? "") + "\n"
        text += event.actor.rawValue + "\n"
        text += "\(event.receivedAt.timeIntervalSince1970)\n"
        text += (event.deviceAt.map { "\($0.timeIntervalSince1970)" } ?? "") + "\n"
        text += String(decoding: event.payload, as: UTF8.self) + "\n"
        text += event.personalDigest ?? ""
        return text
    }

    public static func seal(previous: String, sequence: Int64, eventId: Int64, contentHash: String) -> String {
        SHA256.hex("\(previous)\n\(sequence)\n\(eventId)\n\(contentHash)")
    }

    /// Seals `events` (id and content hash, in the order found) after seal `sequence` whose hash
    /// is `previous`.
    public static func seals(
        after sequence: Int64, previous: String, events: [(id: Int64, hash: String)]
    )
        -> [LedgerSeal]
    {
        var seals: [LedgerSeal] = []
        seals.reserveCapacity(events.count)
        var chain = previous
        for (offset, event) in events.enumerated() {
            let next = sequence + Int64(offset) + 1
            chain = seal(previous: chain, sequence: next, eventId: event.id, contentHash: event.hash)
            seals.append(LedgerSeal(sequence: next, eventId: event.id, chainHash: chain))
        }
        return seals
    }
}

/// One link of the chain.
public struct LedgerSeal: Hashable, Sendable {
    public var sequence: Int64
    public var eventId: Int64
    public var chainHash: String

    public init(sequence: Int64, eventId: Int64, chainHash: String) {
        self.sequence = sequence
        self.eventId = eventId
        self.chainHash = chainHash
    }
}

extension LedgerReceipt {
    /// The receipt of `event`, leaf `leaf` of the tree, with its inclusion proof.
    public init(of event: LedgerEvent, leaf: Int64, proof: [MerkleTree.Hash]) {
        self.init(rowId: event.id, leafIndex: leaf, entry: LedgerHash.contentText(of: event), proof: proof)
    }
}
