import Foundation

// The device → server payloads of openapi.yaml. Field names are the wire names; `ts` is RFC 3339.
// They are the contract the server's OpenAPI document formalizes.

/// The beacon identity of a site on the wire.
public struct BeaconSiteBody: Hashable, Sendable, Codable {
    public var uuid: String
    public var major: Int

    public init(_ site: SiteBeacon) {
        uuid = site.uuid.uuidString
        major = Int(site.major)
    }
}

public struct DeviceMeta: Hashable, Sendable, Codable {
    public var deviceId: String
    public var platform: String
    public var appVersion: String?

    public init(deviceId: String, platform: String, appVersion: String? = nil) {
        self.deviceId = deviceId
        self.platform = platform
        self.appVersion = appVersion
    }
}

public struct CheckInRequest: Hashable, Sendable, Codable {
    public var userId: String
    /// The server's site id when the device knows it; otherwise the server resolves `beacon`.
    public var siteId: String?
    public var beacon: BeaconSiteBody
    public var ts: String
    public var sessionKey: String
    public var source: String
    public var reason: String?
    public var deviceMeta: DeviceMeta
    public var evidence: CheckInEvidence?

    public init(userId: String, siteId: String? = nil, beacon: BeaconSiteBody, ts: String, sessionKey: String, source: String,
                reason: String? = nil, deviceMeta: DeviceMeta, evidence: CheckInEvidence? = nil) {
        self.userId = userId
        self.siteId = siteId
        self.beacon = beacon
        self.ts = ts
        self.sessionKey = sessionKey
        self.source = source
        self.reason = reason
        self.deviceMeta = deviceMeta
        self.evidence = evidence
    }
}

public struct CheckOutRequest: Hashable, Sendable, Codable {
    public var sessionKey: String
    public var ts: String
    public var reason: String
    public var source: String

    public init(sessionKey: String, ts: String, reason: String, source: String) {
        self.sessionKey = sessionKey
        self.ts = ts
        self.reason = reason
        self.source = source
    }
}

public struct HeartbeatRequest: Hashable, Sendable, Codable {
    public var sessionKey: String
    public var ts: String

    public init(sessionKey: String, ts: String) {
        self.sessionKey = sessionKey
        self.ts = ts
    }
}

/// One item of `POST /v1/attendance/events`: its own idempotency key and exactly one payload.
public struct EventBatchItem: Hashable, Sendable, Codable {
    public var idempotencyKey: String
    public var type: AttendanceEvent.Kind
    public var checkIn: CheckInRequest?
    public var checkOut: CheckOutRequest?
    public var heartbeat: HeartbeatRequest?

    public init(idempotencyKey: String, type: AttendanceEvent.Kind, checkIn: CheckInRequest? = nil,
                checkOut: CheckOutRequest? = nil, heartbeat: HeartbeatRequest? = nil) {
        self.idempotencyKey = idempotencyKey
        self.type = type
        self.checkIn = checkIn
        self.checkOut = checkOut
        self.heartbeat = heartbeat
    }
}

public struct EventBatchRequest: Hashable, Sendable, Codable {
    public var events: [EventBatchItem]
    public init(events: [EventBatchItem]) { self.events = events }
}

/// The per-item outcome of a batch: the status the single endpoint would have answered.
public struct EventBatchResult: Hashable, Sendable, Codable {
    public var idempotencyKey: String
    public var status: Int
    /// For errors: RFC 9457 problem details.
    public var problem: ProblemDetails?

    public init(idempotencyKey: String, status: Int, problem: ProblemDetails? = nil) {
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.problem = problem
    }
}

public struct EventBatchResponse: Hashable, Sendable, Codable {
    public var results: [EventBatchResult]
    public init(results: [EventBatchResult]) { self.results = results }
}

/// RFC 9457 `application/problem+json`.
public struct ProblemDetails: Hashable, Sendable, Codable {
    public var type: String?
    public var title: String?
    public var status: Int?
    public var detail: String?

    public init(type: String? = nil, title: String? = nil, status: Int? = nil, detail: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
    }
}

extension AttendanceEvent {
    /// The batch item for this event, as the device sends it.
    public func batchItem(platform: String, appVersion: String? = nil, siteID: SiteID? = nil) -> EventBatchItem {
        let ts = RFC3339.format(timestamp)
        switch kind {
        case .checkIn:
            return EventBatchItem(idempotencyKey: idempotencyKey, type: .checkIn, checkIn: CheckInRequest(
                userId: userID.rawValue, siteId: siteID?.rawValue, beacon: BeaconSiteBody(site), ts: ts, sessionKey: sessionKey.rawValue,
                source: source.rawValue, reason: reason,
                deviceMeta: DeviceMeta(deviceId: deviceID.rawValue, platform: platform, appVersion: appVersion), evidence: evidence))
        case .checkOut:
            return EventBatchItem(idempotencyKey: idempotencyKey, type: .checkOut, checkOut: CheckOutRequest(
                sessionKey: sessionKey.rawValue, ts: ts, reason: reason ?? "unspecified", source: source.rawValue))
        case .heartbeat:
            return EventBatchItem(idempotencyKey: idempotencyKey, type: .heartbeat,
                                  heartbeat: HeartbeatRequest(sessionKey: sessionKey.rawValue, ts: ts))
        }
    }
}
