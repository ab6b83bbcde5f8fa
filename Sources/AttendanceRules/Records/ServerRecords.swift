import AttendanceModels
import Foundation

// What the server stores. Their wire shapes are the contract's generated types, mapped in AttendanceHTTP.

public struct SiteRecord: Hashable, Sendable {
    public var id: SiteID
    public var name: String
    public var timeZone: String
    public var beacon: SiteBeacon
    public var geofence: Geofence?
    /// When an admin deleted the site. A deleted site is kept (its sessions point to it), hidden
    /// from the devices' configuration, and its new check-ins are refused (422).
    public var deactivatedAt: Date?

    public init(
        id: SiteID, name: String, timeZone: String, beacon: SiteBeacon, geofence: Geofence? = nil,
        deactivatedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.timeZone = timeZone
        self.beacon = beacon
        self.geofence = geofence
        self.deactivatedAt = deactivatedAt
    }

    public var isActive: Bool { deactivatedAt == nil }
}

public struct EmployeeRecord: Hashable, Sendable {
    public var id: UserID
    public var name: String
    public var externalId: String?
    public var email: String?
    /// When an admin deactivated the employee: their devices were revoked, their records kept, and
    /// new check-ins and enrollment codes for them are refused (422).
    public var deactivatedAt: Date?

    public init(id: UserID, name: String, externalId: String? = nil, email: String? = nil, deactivatedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.externalId = externalId
        self.email = email
        self.deactivatedAt = deactivatedAt
    }

    public var isActive: Bool { deactivatedAt == nil }
}

public struct DeviceRecord: Hashable, Sendable {
    public var id: DeviceID
    public var userId: UserID
    public var platform: String
    public var deviceName: String?
    public var enrolledAt: Date
    public var lastSeenAt: Date?
    public var revokedAt: Date?
    /// What the phone last reported it lets the app do (nil until it reports).
    public var state: DeviceState?
    /// The app's version when the phone enrolled (its reported state's is newer when there is one).
    public var appVersion: String?

    package init(
        id: DeviceID, userId: UserID, platform: String, deviceName: String? = nil, enrolledAt: Date,
        lastSeenAt: Date? = nil,
        revokedAt: Date? = nil, state: DeviceState? = nil, appVersion: String? = nil
    ) {
        self.appVersion = appVersion
        self.id = id
        self.userId = userId
        self.platform = platform
        self.deviceName = deviceName
        self.enrolledAt = enrolledAt
        self.lastSeenAt = lastSeenAt
        self.revokedAt = revokedAt
        self.state = state
    }
}

extension DeviceRecord {
    /// How fresh "last seen" is kept (admins see it in the device list).
    public static let lastSeenResolution: Double = 60

    package static func lastSeenIsStale(_ lastSeen: Date?, now: Date) -> Bool {
        guard let lastSeen else { return true }
        return now.timeIntervalSince(lastSeen) >= lastSeenResolution
    }
}

public struct SessionRecord: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var userId: UserID
    public var siteId: SiteID
    public var deviceId: DeviceID?
    public var checkInAt: Date
    public var checkOutAt: Date?
    public var checkOutReason: String?
    public var lastSeenAt: Date
    public var source: EventSource
    /// What the device said about the session, kept as sent.
    public var evidence = SessionEvidence()
    /// A person changed it: corrected, added by an admin, or voided (its history says who and why).
    public var corrected = false
    /// When an admin voided it (a void replaces a delete: the session stays, counted nowhere).
    public var voidedAt: Date?
    public var voidReason: String?

    package init(
        sessionKey: SessionKey, userId: UserID, siteId: SiteID, deviceId: DeviceID? = nil, checkInAt: Date,
        checkOutAt: Date? = nil, checkOutReason: String? = nil, lastSeenAt: Date, source: EventSource,
        evidence: SessionEvidence = SessionEvidence(), corrected: Bool = false, voidedAt: Date? = nil,
        voidReason: String? = nil
    ) {
        self.sessionKey = sessionKey
        self.userId = userId
        self.siteId = siteId
        self.deviceId = deviceId
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.checkOutReason = checkOutReason
        self.lastSeenAt = lastSeenAt
        self.source = source
        self.evidence = evidence
        self.corrected = corrected
        self.voidedAt = voidedAt
        self.voidReason = voidReason
    }

    /// `open`, `closed` or `voided`, as the API shows it.
    public var status: String { voidedAt != nil ? "voided" : checkOutAt == nil ? "open" : "closed" }
}

/// What a device said about a session, kept as sent (issue #22): the employee's reason for a manual
/// check-in, the rule that confirmed an automatic one with its signal, the app's version, and how
/// the session ended (the check-out's own source).
public struct SessionEvidence: Hashable, Sendable {
    public var checkInReason: String?
    public var checkOutSource: EventSource?
    public var appVersion: String?
    /// `early`, `strongMedian`, `walking`, `dwell`, `usualDesk`, `manual`… (docs/ENGINE.md).
    public var rule: String?
    public var sampleCount: Int?
    public var medianRSSI: Double?
    public var stdevDB: Double?
    public var walking: Bool?
    /// The server's receive time − the device's clock when it sent the check-in (seconds): a
    /// phone whose clock is off shows here. Nil when the device did not say when it sent it.
    public var clockSkewSeconds: Double?

    public init(
        checkInReason: String? = nil, checkOutSource: EventSource? = nil, appVersion: String? = nil,
        rule: String? = nil,
        sampleCount: Int? = nil, medianRSSI: Double? = nil, stdevDB: Double? = nil, walking: Bool? = nil,
        clockSkewSeconds: Double? = nil
    ) {
        self.clockSkewSeconds = clockSkewSeconds
        self.checkInReason = checkInReason
        self.checkOutSource = checkOutSource
        self.appVersion = appVersion
        self.rule = rule
        self.sampleCount = sampleCount
        self.medianRSSI = medianRSSI
        self.stdevDB = stdevDB
        self.walking = walking
    }
}

/// What a check-in asks the store to record.
public struct CheckInCommand: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var userId: UserID
    public var siteId: SiteID
    public var deviceId: DeviceID?
    public var at: Date
    public var source: EventSource
    public var reason: String?
    /// The reason, the app's version and the check-in's signal, as sent.
    public var evidence = SessionEvidence()

    package init(
        sessionKey: SessionKey, userId: UserID, siteId: SiteID, deviceId: DeviceID? = nil, at: Date,
        source: EventSource,
        reason: String? = nil, evidence: SessionEvidence = SessionEvidence()
    ) {
        self.sessionKey = sessionKey
        self.userId = userId
        self.siteId = siteId
        self.deviceId = deviceId
        self.at = at
        self.source = source
        self.reason = reason
        self.evidence = evidence
    }
}

/// A check-out or heartbeat, which may arrive before its check-in.
public struct SessionEventCommand: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case checkOut, heartbeat }
    public var kind: Kind
    public var sessionKey: SessionKey
    public var deviceId: DeviceID?
    public var userId: UserID?
    public var at: Date
    public var reason: String?
    public var source: EventSource
    /// Older than the idempotency keys the server keeps: it may be the resend of an event recorded
    /// before its key was purged, which must not be recorded twice.
    public var mayRepeatRecorded = false

    package init(
        kind: Kind, sessionKey: SessionKey, deviceId: DeviceID? = nil, userId: UserID? = nil, at: Date,
        reason: String? = nil,
        source: EventSource
    ) {
        self.kind = kind
        self.sessionKey = sessionKey
        self.deviceId = deviceId
        self.userId = userId
        self.at = at
        self.reason = reason
        self.source = source
    }
}

/// What a check-in's write found.
public enum CheckInOutcome: Hashable, Sendable {
    /// The session, new (`created`) or known before (natural idempotency on `sessionKey`).
    case recorded(SessionRecord, created: Bool)
    /// The site was deleted (deactivated) before the session could be recorded: nothing written.
    case siteInactive(SiteID)
    /// The employee was deactivated before the session could be recorded: nothing written.
    case employeeInactive(UserID)
}

public enum SessionEventOutcome: Hashable, Sendable {
    /// Applied to the session (or already applied: the first check-out wins).
    case applied(SessionRecord)
    /// The session's check-in has not arrived; the event is kept and reconciled with it.
    case pending
    /// The session belongs to another user.
    case forbidden(owner: UserID)
    /// A check-out earlier than the session's check-in: nothing was written.
    case checkOutBeforeCheckIn(checkInAt: Date)
}

/// A stored answer to an idempotent request, replayed byte for byte.
public struct StoredReply: Hashable, Sendable {
    public var status: Int
    public var contentType: String
    public var body: Data

    public init(status: Int, contentType: String, body: Data) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// Where a request's answer goes: its idempotency key, and how to render the answer from what
/// the write found. The write, the key and the answer commit in one transaction.
public struct AnswerSlot<Found: Sendable>: Sendable {
    public var scope: String
    public var key: String
    public var requestHash: String
    public var render: @Sendable (Found) throws -> StoredReply

    public init(
        scope: String, key: String, requestHash: String, render: @escaping @Sendable (Found) throws -> StoredReply
    ) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
        self.render = render
    }
}

/// One item of a batch, ready to write in the batch's transaction.
public enum BatchWrite: Sendable {
    case checkIn(CheckInCommand, AnswerSlot<CheckInOutcome>)
    case apply(SessionEventCommand, AnswerSlot<SessionEventOutcome>)
    /// A refusal stored under the item's key.
    case refusal(AnswerSlot<Void>)
    /// A refusal with no usable key (the item's own key is malformed): answered, nothing stored.
    case unkeyed(StoredReply)

    /// The session whose lock the item needs (PostgreSQL locks them all, in order, first).
    public var sessionKey: SessionKey? {
        switch self {
        case .checkIn(let command, _): command.sessionKey
        case .apply(let command, _): command.sessionKey
        case .refusal, .unkeyed: nil
        }
    }

    /// The ledger row the item appends if it is recorded (built before a transaction starts).
    public func ledgerRow(now: Date) -> LedgerEvent? {
        switch self {
        case .checkIn(let command, _): LedgerEvent.checkIn(command, now: now)
        case .apply(let command, _): LedgerEvent.sessionEvent(command, now: now)
        case .refusal, .unkeyed: nil
        }
    }
}

/// What a write with an `AnswerSlot` did.
public enum SlotOutcome: Hashable, Sendable {
    /// Written, and this answer stored under the key.
    case answered(StoredReply)
    /// The key was used before (a replay, another payload, or still in flight): nothing written.
    case earlier(IdempotencyClaim)
}

/// Claims commit with their answers, in one transaction, so no claim is left in flight by a crash.
/// Releases before that committed a batch's claim first; a claim of theirs that a crash left
/// unanswered blocks its key (409) for this long after it was made, then the key's next request
/// takes it over and is processed.
public enum IdempotencyLease {
    public static let seconds: Double = 120
}

/// The first step of an idempotent request, inside the transaction that answers it.
public enum IdempotencyClaim: Hashable, Sendable {
    /// New key (or one a crashed earlier release left in flight): the request is processed.
    case claimed
    /// Same key, same payload, answered before: replay this.
    case replay(StoredReply)
    /// Same key, different payload (422).
    case payloadMismatch
    /// Same key, claimed by a request still being processed (409). Claims commit with their
    /// answer, so this is only seen while a claim written by an earlier release is younger than
    /// `IdempotencyLease.seconds`.
    case inFlight
}
