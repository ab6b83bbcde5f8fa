import AttendanceModels
import Foundation

/// "My record": the employee's receipts with every checkpoint they were checked against and the
/// consistency proofs between those checkpoints, under the key the phone pinned: a file anyone can
/// check offline with the documented formats (LEDGER.md, "Checking my record";
/// docs/examples/verify-my-record.sh).
public enum MyRecord {
    struct File: Encodable {
        var format = "beacon-attendance-my-record-v1"
        var device: String
        var logKey: String
        var checkpoints: [Kept]
        var receipts: [Receipt]
    }

    struct Kept: Encodable {
        var size: Int64
        var note: String
        var consistencyFrom: Int64?
        var consistencyProof: [String]
    }

    struct Receipt: Encodable {
        var rowId: Int64
        var leafIndex: Int64
        var checkpointSize: Int64
        var entry: String
        var proof: [String]
    }

    /// The file's name and JSON; nil before the phone has checked any receipt.
    public static func file(store: DeviceStore, deviceID: String) throws -> (name: String, contents: String)? {
        let receipts = try store.ledgerReceipts()
        guard let state = try store.ledgerReceiptState(), !receipts.isEmpty else { return nil }
        let base64 = { (hashes: [MerkleTree.Hash]) in hashes.map { Data($0).base64EncodedString() } }
        let file = File(
            device: deviceID, logKey: state.logKey,
            checkpoints: try store.ledgerCheckpoints().map { kept in
                Kept(
                    size: kept.size, note: kept.note, consistencyFrom: kept.consistencyFrom,
                    consistencyProof: base64(kept.consistencyProof))
            },
            receipts: receipts.map { kept in
                Receipt(
                    rowId: kept.receipt.rowId, leafIndex: kept.receipt.leafIndex, checkpointSize: kept.checkpointSize,
                    entry: kept.receipt.entry, proof: base64(kept.receipt.proof))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ("my-record-\(deviceID).json", String(decoding: try encoder.encode(file), as: UTF8.self))
    }
}
