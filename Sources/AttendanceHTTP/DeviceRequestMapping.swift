import AttendanceConsole
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation

/// The device's events, from the contract's generated types to `IngestService`'s typed requests:
/// the server's one mapping of them. Each request's identity (what makes a resend under its key the
/// same request) is the SHA-256 of its canonical encoding, `Wire.encode`: sorted keys, times as
/// RFC 3339 in UTC, so key order, spacing and a time's offset don't make another payload.
enum DeviceRequestMapping {
    static func checkIn(_ body: Components.Schemas.CheckInRequest) throws -> DeviceRequest {
        let evidence = body.evidence.map {
            CheckInEvidence(
                sampleCount: $0.sampleCount, medianRSSI: $0.medianRSSI, stdevDB: $0.stdevDB, walking: $0.walking,
                rule: $0.rule)
        }
        let checkIn = DeviceRequest.CheckIn(
            userId: body.userId, siteId: body.siteId, beaconUUID: body.beacon.uuid, beaconMajor: body.beacon.major,
            at: body.ts, sessionKey: body.sessionKey, source: body.source == .manual ? .manual : .automatic,
            reason: body.reason, appVersion: body.deviceMeta.appVersion, evidence: evidence)
        return DeviceRequest(.checkIn(checkIn), identity: try identity(body))
    }

    static func checkOut(_ body: Components.Schemas.CheckOutRequest) throws -> DeviceRequest {
        let event = DeviceRequest.SessionEvent(
            sessionKey: body.sessionKey, at: body.ts, reason: body.reason,
            source: body.source == .manual ? .manual : .automatic)
        return DeviceRequest(.checkOut(event), identity: try identity(body))
    }

    static func heartbeat(_ body: Components.Schemas.HeartbeatRequest) throws -> DeviceRequest {
        DeviceRequest(.heartbeat(.init(sessionKey: body.sessionKey, at: body.ts)), identity: try identity(body))
    }

    /// Each item as its single endpoint's body would be, or why it is not one. The batch's
    /// identity is its canonical JSON (parsed, keys sorted).
    static func batch(_ body: Components.Schemas.EventBatchRequest) throws -> DeviceBatch {
        let items = body.events.enumerated().map { index, item -> DeviceBatch.Item in
            do {
                return .request(idempotencyKey: item.idempotencyKey, try request(item, field: "events[\(index)]"))
            } catch let refusal as DomainError {
                return .refused(idempotencyKey: item.idempotencyKey, refusal)
            } catch {
                return .refused(
                    idempotencyKey: item.idempotencyKey,
                    DomainError(.invalid, "Invalid request", "'events[\(index)]' could not be read: \(error)"))
            }
        }
        return DeviceBatch(items: items, identity: canonicalIdentity(try Wire.encode(body)))
    }

    // MARK: - Batch items

    private static func request(_ item: Components.Schemas.EventBatchItem, field: String) throws -> DeviceRequest {
        let type = item._type.rawValue
        let payloads: [(name: String, present: Bool)] = [
            ("checkIn", item.checkIn != nil), ("checkOut", item.checkOut != nil), ("heartbeat", item.heartbeat != nil),
        ]
        let present = payloads.filter { $0.present }.map { $0.name }
        guard present == [type] else {
            throw DomainError.field(field + "." + type, nil, expected: "exactly one payload, the one named by 'type'")
        }
        let field = field + "." + type
        switch item._type {
        case .checkIn: return try checkIn(try singleBody(item.checkIn!, field: field))
        case .checkOut: return try checkOut(try singleBody(item.checkOut!, field: field))
        case .heartbeat: return try heartbeat(try singleBody(item.heartbeat!, field: field))
        }
    }

    /// A batch's check-in as `POST /v1/attendance/check-in`'s body (its fields are optional in the
    /// batch so that one bad item is that item's refusal, not the batch's).
    private static func singleBody(
        _ item: Components.Schemas.BatchCheckIn, field: String
    ) throws -> Components.Schemas.CheckInRequest {
        let beacon = try required(item.beacon, field + ".beacon", "the site's beacon {uuid, major}")
        let evidence = try item.evidence.map { evidence in
            Components.Schemas.CheckInEvidence(
                sampleCount: Int(try required(evidence.sampleCount, field + ".evidence.sampleCount", "an integer")),
                medianRSSI: evidence.medianRSSI, stdevDB: evidence.stdevDB,
                walking: try required(evidence.walking, field + ".evidence.walking", "true or false"),
                rule: try required(evidence.rule, field + ".evidence.rule", "the rule that confirmed the check-in"))
        }
        return .init(
            userId: try required(item.userId, field + ".userId", "the employee's id"), siteId: item.siteId,
            beacon: .init(
                uuid: try required(beacon.uuid, field + ".beacon.uuid", "a UUID"),
                major: Int(try required(beacon.major, field + ".beacon.major", "an integer from 0 to 65535"))),
            ts: try required(item.ts, field + ".ts", "an RFC 3339 time with an offset"),
            sessionKey: try required(item.sessionKey, field + ".sessionKey", InputRules.identifierExpectation),
            source: try source(item.source, field: field + ".source"), reason: item.reason,
            deviceMeta: try required(item.deviceMeta, field + ".deviceMeta", "{deviceId, platform}"),
            evidence: evidence)
    }

    private static func singleBody(
        _ item: Components.Schemas.BatchCheckOut, field: String
    ) throws -> Components.Schemas.CheckOutRequest {
        .init(
            sessionKey: try required(item.sessionKey, field + ".sessionKey", InputRules.identifierExpectation),
            ts: try required(item.ts, field + ".ts", "an RFC 3339 time with an offset"),
            reason: try required(item.reason, field + ".reason", "why the session ended, e.g. regionExit"),
            source: try source(item.source, field: field + ".source"))
    }

    private static func singleBody(
        _ item: Components.Schemas.BatchHeartbeat, field: String
    ) throws -> Components.Schemas.HeartbeatRequest {
        .init(
            sessionKey: try required(item.sessionKey, field + ".sessionKey", InputRules.identifierExpectation),
            ts: try required(item.ts, field + ".ts", "an RFC 3339 time with an offset"))
    }

    private static func required<Value>(_ value: Value?, _ field: String, _ expected: String) throws -> Value {
        guard let value else { throw DomainError.field(field, nil, expected: expected) }
        return value
    }

    /// `automatic` or `manual`, as the single endpoint's enumeration.
    private static func source<Payload: RawRepresentable>(
        _ text: String?, field: String
    ) throws -> Payload where Payload.RawValue == String {
        let text = try required(text, field, "automatic or manual")
        guard let source = Payload(rawValue: text) else {
            throw DomainError.field(field, InputRules.shown(text), expected: "automatic or manual")
        }
        return source
    }

    // MARK: - Identity

    private static func identity<Body: Encodable>(_ body: Body) throws -> String {
        SHA256.hex(bytes: try Wire.encode(body))
    }

    /// A JSON document's identity through `JSONSerialization` (parsed, keys sorted): the batch's
    /// identity since it was first offered, kept so that a batch sent before an upgrade and resent
    /// after it is still the same request.
    private static func canonicalIdentity(_ json: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]),
            let canonical = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else {
            return SHA256.hex(bytes: json)
        }
        return SHA256.hex(bytes: canonical)
    }
}
