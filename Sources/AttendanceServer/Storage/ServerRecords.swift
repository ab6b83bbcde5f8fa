import AttendanceModels
import Foundation

// What the server stores. Wire shapes (RFC 3339 strings, `siteId` names) are in `Ingest/Replies.swift`.

public struct SiteRecord: Hashable, Sendable {
    public var id: SiteID
    public var name: String
    public var timeZone: String
    public var beacon: SiteBeacon
    public var geofence: Geofence?

    public init(id: SiteID, name: String, timeZone: String, beacon: SiteBeacon, geofence: Geofence? = nil) {
        self.id = id
        self.name = name
        self.timeZone = timeZone
        self.beacon = beacon
        self.geofence = geofence
    }
}

public struct EmployeeRecord: Hashable, Sendable {
    public var id: UserID
    public var name: String
    public var externalId: String?
    public var email: String?

    public init(id: UserID, name: String, externalId: String? = nil, email: String? = nil) {
        self.id = id
        self.name = name
        self.externalId = externalId
        self.email = email
    }
}

public struct DeviceRecord: Hashable, Sendable {
    public var id: DeviceID
    public var userId: UserID
    public var platform: String
    public var deviceName: String?
    public var enrolledAt: Date
    public var lastSeenAt: Date?
    public var revokedAt: Date?
}

extension DeviceRecord {
    /// How fresh "last seen" is kept (admins see it in the device list).
    public static let lastSeenResolution: Double = 60

    static func lastSeenIsStale(_ lastSeen: Date?, now: Date) -> Bool {
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

    public init(scope: String, key: String, requestHash: String, render: @escaping @Sendable (Found) throws -> StoredReply) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
        self.render = render
    }
}

/// What a write with an `AnswerSlot` did.
public enum SlotOutcome: Hashable, Sendable {
    /// Written, and this answer stored under the key.
    case answered(StoredReply)
    /// The key was used before (a replay, another payload, or still in flight): nothing written.
    case earlier(IdempotencyClaim)
}

/// The first step of an idempotent request.
public enum IdempotencyClaim: Hashable, Sendable {
    /// New key: the caller processes the request, then `completeIdempotency`.
    case claimed
    /// Same key, same payload, answered before: replay this.
    case replay(StoredReply)
    /// Same key, different payload (422).
    case payloadMismatch
    /// Same key, still being processed (409).
    case inFlight
}
