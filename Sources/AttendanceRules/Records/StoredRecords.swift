import AttendanceModels
import Foundation

// Records the stores keep beside the server's own (ServerRecords.swift): beacons, events waiting for
// their session, enrollment codes, and the ledger tree's checkpoints, cosignatures and warnings.

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
