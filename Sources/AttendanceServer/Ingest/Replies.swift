import AttendanceModels
import Foundation

/// The wire shape of a session (`#/components/schemas/Session`).
public struct SessionBody: Hashable, Sendable, Codable {
    public var sessionKey: String
    public var userId: String
    public var siteId: String
    public var checkInAt: String
    public var checkOutAt: String?
    public var checkOutReason: String?
    public var lastSeenAt: String
    public var status: String
    public var source: String
    public var workedSeconds: Int?
    public var deviceId: String?
    public var checkInReason: String?
    public var checkOutSource: String?
    public var appVersion: String?
    public var evidence: EvidenceBody?
    public var corrected: Bool?
    public var voidedAt: String?
    public var voidReason: String?
    public var clockSkewSeconds: Double?

    /// The check-in's signal (`#/components/schemas/SessionEvidence`).
    public struct EvidenceBody: Hashable, Sendable, Codable {
        public var rule: String
        public var sampleCount: Int?
        public var medianRSSI: Double?
        public var stdevDB: Double?
        public var walking: Bool?
    }

    public init(_ session: SessionRecord) {
        sessionKey = session.sessionKey.rawValue
        userId = session.userId.rawValue
        siteId = session.siteId.rawValue
        checkInAt = RFC3339.format(session.checkInAt)
        checkOutAt = session.checkOutAt.map(RFC3339.format)
        checkOutReason = session.checkOutReason
        lastSeenAt = RFC3339.format(session.lastSeenAt)
        status = session.status
        source = session.source.rawValue
        workedSeconds = session.checkOutAt.map { Int($0.timeIntervalSince(session.checkInAt).rounded()) }
        deviceId = session.deviceId?.rawValue
        checkInReason = session.evidence.checkInReason
        checkOutSource = session.evidence.checkOutSource?.rawValue
        appVersion = session.evidence.appVersion
        evidence = session.evidence.rule.map { rule in
            EvidenceBody(rule: rule, sampleCount: session.evidence.sampleCount, medianRSSI: session.evidence.medianRSSI,
                         stdevDB: session.evidence.stdevDB, walking: session.evidence.walking)
        }
        // Present only when set, so that an uncorrected session's answer is the bytes it always was.
        corrected = session.corrected ? true : nil
        voidedAt = session.voidedAt.map(RFC3339.format)
        voidReason = session.voidReason
        clockSkewSeconds = session.evidence.clockSkewSeconds
    }
}

public struct PendingEventBody: Hashable, Sendable, Codable {
    public var sessionKey: String
    public var status = "awaitingCheckIn"
}

enum Replies {
    /// Sorted keys: the same answer is always the same bytes.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json<T: Encodable>(_ status: Int, _ value: T) throws -> StoredReply {
        StoredReply(status: status, contentType: "application/json", body: try encoder.encode(value))
    }

    /// The identity of a decoded request: its content encoded with sorted keys.
    static func contentHash<T: Encodable>(_ value: T) throws -> String {
        SHA256.hex(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The identity of a body that did not decode: its bytes.
    static func rawHash(_ body: Data) -> String { SHA256.hex(String(decoding: body, as: UTF8.self)) }

    /// A canonical form of a JSON payload (parsed, keys sorted), so that a resend whose bytes
    /// differ only in key order or spacing is recognized as the same payload.
    static func canonicalHash(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else {
            return SHA256.hex(String(decoding: body, as: UTF8.self))
        }
        return SHA256.hex(String(decoding: canonical, as: UTF8.self))
    }
}
