import Foundation

// What the server keeps of its ledger's transparency: the checkpoints it signed, the witnesses'
// cosignatures, and the phones' reports that their receipts didn't hold.

/// A checkpoint the server signed, as stored.
public struct StoredCheckpoint: Sendable, Equatable {
    public var checkpoint: Checkpoint
    /// The signed note, as served.
    public var note: String
    public var signedAt: Date

    public init(checkpoint: Checkpoint, note: String, signedAt: Date) {
        self.checkpoint = checkpoint
        self.note = note
        self.signedAt = signedAt
    }
}

/// A witness's cosignature of one of the ledger's checkpoints (LEDGER.md, "Witnesses"), as kept.
public struct StoredCosignature: Sendable, Equatable {
    public var witness: String
    public var treeSize: Int64
    /// The note signature line, as the witness wrote it.
    public var line: String
    /// When the witness says it cosigned.
    public var cosignedAt: Date
    public var receivedAt: Date

    public init(witness: String, treeSize: Int64, line: String, cosignedAt: Date, receivedAt: Date) {
        self.witness = witness
        self.treeSize = treeSize
        self.line = line
        self.cosignedAt = cosignedAt
        self.receivedAt = receivedAt
    }
}

/// A phone's report that the ledger did not match its receipts (LEDGER.md, "Receipts").
public struct LedgerWarning: Sendable, Equatable {
    public var deviceId: DeviceID
    public var userId: UserID
    public var problem: String
    /// The checkpoint the phone was shown, as it came.
    public var checkpoint: String?
    public var reportedAt: Date

    public init(deviceId: DeviceID, userId: UserID, problem: String, checkpoint: String?, reportedAt: Date) {
        self.deviceId = deviceId
        self.userId = userId
        self.problem = problem
        self.checkpoint = checkpoint
        self.reportedAt = reportedAt
    }
}
