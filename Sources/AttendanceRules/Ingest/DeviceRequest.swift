import AttendanceModels
import Foundation

/// A device's event as `IngestService` takes it: typed by the contract's mapping (AttendanceHTTP's
/// `DeviceRequestMapping`, the one place that reads the generated wire types), then checked and
/// looked up by the service.
public struct DeviceRequest: Hashable, Sendable {
    public enum Event: Hashable, Sendable {
        case checkIn(CheckIn)
        case checkOut(SessionEvent)
        case heartbeat(SessionEvent)
    }

    public struct CheckIn: Hashable, Sendable {
        public var userId: String
        /// The server's site id when the device knows it; otherwise `beacon` names the site.
        public var siteId: String?
        public var beaconUUID: String
        public var beaconMajor: Int
        public var at: Date
        public var sessionKey: String
        public var source: EventSource
        public var reason: String?
        public var appVersion: String?
        public var evidence: CheckInEvidence?

        public init(
            userId: String, siteId: String? = nil, beaconUUID: String, beaconMajor: Int, at: Date, sessionKey: String,
            source: EventSource, reason: String? = nil, appVersion: String? = nil, evidence: CheckInEvidence? = nil
        ) {
            self.userId = userId
            self.siteId = siteId
            self.beaconUUID = beaconUUID
            self.beaconMajor = beaconMajor
            self.at = at
            self.sessionKey = sessionKey
            self.source = source
            self.reason = reason
            self.appVersion = appVersion
            self.evidence = evidence
        }
    }

    /// A check-out (its `reason` required) or a heartbeat (no reason; always automatic).
    public struct SessionEvent: Hashable, Sendable {
        public var sessionKey: String
        public var at: Date
        public var reason: String?
        public var source: EventSource

        public init(sessionKey: String, at: Date, reason: String? = nil, source: EventSource = .automatic) {
            self.sessionKey = sessionKey
            self.at = at
            self.reason = reason
            self.source = source
        }
    }

    public var event: Event
    /// What makes a resend under the same `Idempotency-Key` the same request: a digest of the
    /// payload's canonical form, which the mapping computes (docs/SERVER.md, "Exactly once").
    public var identity: String

    public init(_ event: Event, identity: String) {
        self.event = event
        self.identity = identity
    }
}

/// `POST /v1/attendance/events` as `IngestService` takes it: each item typed, or refused by the
/// mapping because it does not have the contract's shape (that refusal claims no key, as the
/// single endpoints' decoder refuses such a body before the service).
public struct DeviceBatch: Sendable {
    public enum Item: Sendable {
        case request(idempotencyKey: String, DeviceRequest)
        case refused(idempotencyKey: String, DomainError)

        public var idempotencyKey: String {
            switch self {
            case .request(let key, _), .refused(let key, _): key
            }
        }
    }

    public var items: [Item]
    /// The whole batch's identity under the batch's own key.
    public var identity: String

    public init(items: [Item], identity: String) {
        self.items = items
        self.identity = identity
    }
}
