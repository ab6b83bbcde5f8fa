import AttendanceModels
import Foundation

// Records the stores keep beside the server's own (ServerRecords.swift): beacons, events waiting for
// their session, enrollment codes, and what finds and grows the ledger's tree.

public struct BeaconRecord: Hashable, Sendable {
    public var id: BeaconID
    public var siteId: SiteID
    public var minor: UInt16
    public var label: String?
    public var txPowerDBm: Double?

    public init(id: BeaconID, siteId: SiteID, minor: UInt16, label: String? = nil, txPowerDBm: Double? = nil) {
        self.id = id
        self.siteId = siteId
        self.minor = minor
        self.label = label
        self.txPowerDBm = txPowerDBm
    }
}

/// A check-out or heartbeat stored without its session, as an export shows it.
public struct PendingEventRecord: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var kind: SessionEventCommand.Kind
    public var at: Date
    public var reason: String?
    public var receivedAt: Date

    public init(sessionKey: SessionKey, kind: SessionEventCommand.Kind, at: Date, reason: String?, receivedAt: Date) {
        self.sessionKey = sessionKey
        self.kind = kind
        self.at = at
        self.reason = reason
        self.receivedAt = receivedAt
    }
}

/// An employee deactivated, with the sessions that were open and are now closed ("deactivated").
public struct DeactivatedEmployee: Sendable {
    public var employee: EmployeeRecord
    public var closedSessions: [SessionRecord]

    public init(employee: EmployeeRecord, closedSessions: [SessionRecord]) {
        self.employee = employee
        self.closedSessions = closedSessions
    }
}

/// What became of an enrollment code.
public enum CodeRedemption: Hashable, Sendable {
    case redeemed(UserID)
    case unknown
    case alreadyUsed
    case expired(Date)
}

/// An enrollment code as stored (its hash is the key).
public struct StoredEnrollmentCode: Sendable, Equatable {
    public var userId: UserID
    public var expiresAt: Date
    public var usedAt: Date?

    public init(userId: UserID, expiresAt: Date, usedAt: Date?) {
        self.userId = userId
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// Which ledger row a device's event is: its kind, its session and the time the device gave it
/// (with the device's actor, what `LedgerRows.recorded` matches a resend on).
public struct DeviceEventRef: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var kind: LedgerKind
    public var at: Date

    public init(sessionKey: SessionKey, kind: LedgerKind, at: Date) {
        self.sessionKey = sessionKey
        self.kind = kind
        self.at = at
    }
}

/// What one growth of the ledger's tree added (`LedgerTreeRepository.growLedgerTree`): the rows
/// it appended as leaves `from..<checkpoint.size`, the checkpoint it signed (the first that holds
/// them), and the nodes every inclusion proof of those leaves in it is made of (the tree's right
/// edge before, and each node it completed), so their receipts need no read.
public struct LedgerTreeGrowth: Sendable {
    public var checkpoint: StoredCheckpoint
    public var from: Int64
    public var rows: [LedgerEvent]
    public var nodes: [MerkleTree.Node: MerkleTree.Hash]

    public init(
        checkpoint: StoredCheckpoint, from: Int64, rows: [LedgerEvent], nodes: [MerkleTree.Node: MerkleTree.Hash]
    ) {
        self.checkpoint = checkpoint
        self.from = from
        self.rows = rows
        self.nodes = nodes
    }
}
