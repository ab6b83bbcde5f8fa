import Foundation

/// An attendance fact recorded on the device and delivered to the server exactly once.
public struct AttendanceEvent: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case checkIn, checkOut, heartbeat
    }

    public var kind: Kind
    public var userID: UserID
    public var deviceID: DeviceID
    public var site: SiteBeacon
    public var sessionKey: SessionKey
    /// When it happened (first qualifying sample, last time heard, ...), not when it was decided.
    public var timestamp: Date
    public var source: EventSource
    /// Why a check-out happened, or the employee's reason for a manual event.
    public var reason: String?
    /// What the decision rested on (check-ins only).
    public var evidence: CheckInEvidence?

    public init(
        kind: Kind, userID: UserID, deviceID: DeviceID, site: SiteBeacon, sessionKey: SessionKey,
        timestamp: Date, source: EventSource, reason: String? = nil, evidence: CheckInEvidence? = nil
    ) {
        self.kind = kind
        self.userID = userID
        self.deviceID = deviceID
        self.site = site
        self.sessionKey = sessionKey
        self.timestamp = timestamp
        self.source = source
        self.reason = reason
        self.evidence = evidence
    }

    /// Derived from the event's content (user, device, beacon site, kind, time), so re-deriving
    /// it after a crash or a replay gives the same key and the server can deduplicate.
    public var idempotencyKey: String {
        let millis = Int64((timestamp.timeIntervalSince1970 * 1000).rounded())
        let canonical = ["event", userID.rawValue, deviceID.rawValue, site.uuid.uuidString, String(site.major),
                         kind.rawValue, sessionKey.rawValue, String(millis)].joined(separator: "|")
        return "ev-" + SHA256.hex(canonical).prefix(40)
    }
}

/// Whether the engine decided an event or the employee asked for it.
public enum EventSource: String, Hashable, Sendable, Codable {
    case automatic, manual
}

/// The measurements behind an automatic check-in, kept for audit.
public struct CheckInEvidence: Hashable, Sendable, Codable {
    public var sampleCount: Int
    public var medianRSSI: Double?
    public var stdevDB: Double?
    public var walking: Bool
    /// Which rule confirmed it: `early`, `strongMedian`, `walking`, `dwell`, `usualDesk` or `manual`.
    public var rule: String

    public init(sampleCount: Int, medianRSSI: Double?, stdevDB: Double?, walking: Bool, rule: String) {
        self.sampleCount = sampleCount
        self.medianRSSI = medianRSSI
        self.stdevDB = stdevDB
        self.walking = walking
        self.rule = rule
    }
}

extension SessionKey {
    /// The deterministic session key: the same user, device, site and check-in time (to the
    /// millisecond) always give the same key, so a replay after a crash reproduces it.
    public static func derive(user: UserID, device: DeviceID, site: SiteBeacon, checkIn: Date) -> SessionKey {
        let millis = Int64((checkIn.timeIntervalSince1970 * 1000).rounded())
        let canonical = ["session", user.rawValue, device.rawValue, site.uuid.uuidString, String(site.major), String(millis)]
            .joined(separator: "|")
        return SessionKey("s-" + SHA256.hex(canonical).prefix(32))
    }
}
