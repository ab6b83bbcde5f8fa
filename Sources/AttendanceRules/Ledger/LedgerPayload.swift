import AttendanceModels
import Foundation

/// A ledger row's content as stored: canonical JSON, one shape for every kind, each using the
/// fields it needs; times are epoch seconds (exact, so a rebuild gives the same sessions to the
/// bit), and what an admin changed is in `changes` (field → before and after, as shown to
/// people). Code reads and writes it as a typed `LedgerRecord`, never field by field.
public struct LedgerPayload: Hashable, Sendable, Codable {
    // A device's check-in, check-out or heartbeat, as accepted.
    public var siteId: String?
    public var deviceId: String?
    public var source: String?
    /// A check-out's reason, or why a correction, void or request was made.
    public var reason: String?
    public var checkInReason: String?
    public var appVersion: String?
    public var rule: String?
    public var sampleCount: Int?
    public var medianRSSI: Double?
    public var stdevDB: Double?
    public var walking: Bool?
    /// Receive time − the device's clock when it sent the event (seconds).
    public var clockSkewSeconds: Double?

    // A correction or an added session: the new values.
    public var checkInAt: Double?
    public var checkOutAt: Double?
    /// What a correction that closes an open session records as its check-out's reason, when it
    /// is not "corrected".
    public var closingReason: String?

    // Requests and decisions.
    public var requestId: String?
    public var requestKind: String?
    public var comment: String?
    /// What the employee's phone knew (motion-dated times, the last beacon heard), as sent.
    public var requestEvidence: [String: String]?

    /// What changed, field by field (admin actions, corrections): for people, not for replay.
    public var changes: [String: LedgerChange]?
    /// The id of what an admin action changed (a site, a beacon, a device…).
    public var target: String?
    /// The format's version when it is not 1 (`LedgerRecord.version`); rows of version 1 carry none.
    public var version: Int?

    public init() {}

    /// Strict: a field this release does not know is an error, not ignored.
    public init(from decoder: any Decoder) throws {
        let present = try decoder.container(keyedBy: AnyFieldKey.self).allKeys
        if let unknown = present.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [unknown], debugDescription: "the field '\(unknown.stringValue.prefix(40))' is unknown")
            )
        }
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        siteId = try fields.decodeIfPresent(String.self, forKey: .siteId)
        deviceId = try fields.decodeIfPresent(String.self, forKey: .deviceId)
        source = try fields.decodeIfPresent(String.self, forKey: .source)
        reason = try fields.decodeIfPresent(String.self, forKey: .reason)
        checkInReason = try fields.decodeIfPresent(String.self, forKey: .checkInReason)
        appVersion = try fields.decodeIfPresent(String.self, forKey: .appVersion)
        rule = try fields.decodeIfPresent(String.self, forKey: .rule)
        sampleCount = try fields.decodeIfPresent(Int.self, forKey: .sampleCount)
        medianRSSI = try fields.decodeIfPresent(Double.self, forKey: .medianRSSI)
        stdevDB = try fields.decodeIfPresent(Double.self, forKey: .stdevDB)
        walking = try fields.decodeIfPresent(Bool.self, forKey: .walking)
        clockSkewSeconds = try fields.decodeIfPresent(Double.self, forKey: .clockSkewSeconds)
        checkInAt = try fields.decodeIfPresent(Double.self, forKey: .checkInAt)
        checkOutAt = try fields.decodeIfPresent(Double.self, forKey: .checkOutAt)
        closingReason = try fields.decodeIfPresent(String.self, forKey: .closingReason)
        requestId = try fields.decodeIfPresent(String.self, forKey: .requestId)
        requestKind = try fields.decodeIfPresent(String.self, forKey: .requestKind)
        comment = try fields.decodeIfPresent(String.self, forKey: .comment)
        requestEvidence = try fields.decodeIfPresent([String: String].self, forKey: .requestEvidence)
        changes = try fields.decodeIfPresent([String: LedgerChange].self, forKey: .changes)
        target = try fields.decodeIfPresent(String.self, forKey: .target)
        version = try fields.decodeIfPresent(Int.self, forKey: .version)
    }

    /// Any field name, to find the ones this release does not know.
    private struct AnyFieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static let decoder = JSONDecoder()

    /// Canonical JSON: sorted keys, absent fields left out.
    public func encoded() -> Data {
        // Encoding plain strings, numbers and booleans cannot fail.
        (try? Self.encoder.encode(self)) ?? Data("{}".utf8)
    }
}

/// One field an admin action changed.
public struct LedgerChange: Hashable, Sendable, Codable {
    public var before: String?
    public var after: String?

    public init(before: String?, after: String?) {
        self.before = before
        self.after = after
    }

    /// The fields whose values differ between `before` and `after` (nil: absent).
    public static func diff(_ before: [String: String?], _ after: [String: String?]) -> [String: LedgerChange] {
        var changes: [String: LedgerChange] = [:]
        for key in Set(before.keys).union(after.keys) {
            let old = before[key] ?? nil
            let new = after[key] ?? nil
            if old != new { changes[key] = LedgerChange(before: old, after: new) }
        }
        return changes
    }
}

/// A row's personal part, kept apart from the payload so it can be erased: the personal fields an
/// admin action changed (names, e-mail, a leave day's type) and the free text people wrote about an
/// employee (a correction's or request's reason, a decision's comment, a request's evidence).
/// Stored sealed with its subject's key (`PersonalSeal`); the row's hash covers its digest only.
public struct LedgerPersonal: Hashable, Sendable, Codable {
    public var changes: [String: LedgerChange]
    public var reason: String?
    public var comment: String?
    public var evidence: [String: String]?

    public init(
        changes: [String: LedgerChange] = [:], reason: String? = nil, comment: String? = nil,
        evidence: [String: String]? = nil
    ) {
        self.changes = changes
        self.reason = reason
        self.comment = comment
        self.evidence = evidence
    }

    /// Adds `other`'s fields (its own win where both have one).
    public mutating func add(_ other: LedgerPersonal) {
        changes.merge(other.changes) { _, new in new }
        reason = other.reason ?? reason
        comment = other.comment ?? comment
        evidence = other.evidence ?? evidence
    }

    public var isEmpty: Bool { changes.isEmpty && reason == nil && comment == nil && evidence == nil }

    /// Canonical JSON, or nil when there is nothing personal.
    public func encoded() -> Data? {
        isEmpty ? nil : try? LedgerPayload.encoder.encode(self)
    }

    /// Reads a stored personal part (canonical JSON), or nil when it is not one.
    public static func decoded(_ data: Data) -> LedgerPersonal? {
        try? LedgerPayload.decoder.decode(LedgerPersonal.self, from: data)
    }
}
