import AttendanceModels
import Foundation

// What the stores are asked for: the filters of lists and the cursors of their pages.

/// Which sessions to list; all filters are optional.
public struct SessionFilter: Hashable, Sendable {
    public var userId: UserID?
    public var siteId: SiteID?
    /// Sessions still open, or closed at or after this time.
    public var from: Date?
    /// Sessions that began before this time.
    public var to: Date?
    /// Sessions checked in this way (automatic or manual).
    public var source: EventSource?
    /// Only sessions a person corrected, added or voided.
    public var correctedOnly: Bool
    /// Only sessions whose device clock was off by at least this many seconds, either way.
    public var minSkewSeconds: Double?
    /// Newest check-in first (the console); oldest first otherwise (the API's pages).
    public var newestFirst = false

    public init(
        userId: UserID? = nil, siteId: SiteID? = nil, from: Date? = nil, to: Date? = nil,
        source: EventSource? = nil, correctedOnly: Bool = false, minSkewSeconds: Double? = nil
    ) {
        self.userId = userId
        self.siteId = siteId
        self.from = from
        self.to = to
        self.source = source
        self.correctedOnly = correctedOnly
        self.minSkewSeconds = minSkewSeconds
    }
}

/// Keyset pagination: the last session of the previous page.
public struct SessionCursor: Hashable, Sendable {
    public var checkInAt: Date
    public var sessionKey: SessionKey

    /// Opaque to clients: base64url of "seconds|key".
    public var token: String { PageToken.encode(checkInAt, sessionKey.rawValue) }

    public init(checkInAt: Date, sessionKey: SessionKey) {
        self.checkInAt = checkInAt
        self.sessionKey = sessionKey
    }

    public init?(token: String) {
        guard let (at, key) = PageToken.decode(token) else { return nil }
        self.init(checkInAt: at, sessionKey: SessionKey(key))
    }
}

/// Which ledger rows to list (the audit log); all filters are optional.
public struct LedgerFilter: Hashable, Sendable {
    public var from: Date?
    public var to: Date?
    public var actor: LedgerActor?
    public var sessionKey: SessionKey?
    public var userId: UserID?

    public init(
        from: Date? = nil, to: Date? = nil, actor: LedgerActor? = nil, sessionKey: SessionKey? = nil,
        userId: UserID? = nil
    ) {
        self.from = from
        self.to = to
        self.actor = actor
        self.sessionKey = sessionKey
        self.userId = userId
    }
}

/// A position in the requests, newest first: the last one shown.
public struct RequestCursor: Hashable, Sendable {
    public var createdAt: Date
    public var id: CorrectionRequestID

    public init(_ request: CorrectionRequestRecord) {
        createdAt = request.createdAt
        id = request.id
    }

    /// Opaque to clients: base64url of "seconds|id".
    public var token: String { PageToken.encode(createdAt, id.rawValue) }

    public init?(token: String) {
        guard let (at, id) = PageToken.decode(token) else { return nil }
        createdAt = at
        self.id = CorrectionRequestID(id)
    }
}

/// What a pending correction request points at.
public struct PendingRequestTarget: Hashable, Sendable {
    public var userId: UserID
    public var sessionKey: SessionKey?
    public var siteId: SiteID?
    public var checkInAt: Date?

    public init(userId: UserID, sessionKey: SessionKey?, siteId: SiteID?, checkInAt: Date?) {
        self.userId = userId
        self.sessionKey = sessionKey
        self.siteId = siteId
        self.checkInAt = checkInAt
    }
}

/// A page cursor as clients hold it: base64url of "seconds|id", opaque to them.
enum PageToken {
    static func encode(_ at: Date, _ id: String) -> String {
        Data("\(at.timeIntervalSince1970)|\(id)".utf8).base64URLEncoded
    }

    static func decode(_ token: String) -> (Date, String)? {
        guard let data = Data(base64URLEncoded: token) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]) else { return nil }
        return (Date(timeIntervalSince1970: seconds), String(parts[1]))
    }
}
