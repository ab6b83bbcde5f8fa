import AttendanceModels
import Foundation

/// A ledger row's content. One shape for every kind, each using the fields it needs; times are
/// epoch seconds (exact, so a rebuild gives the same sessions to the bit), and what an admin
/// changed is in `changes` (field → before and after, as shown to people).
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

    public init() {}

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()

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

/// Personal data an admin action carried (kept apart from the payload so it can be erased).
public struct LedgerPersonal: Hashable, Sendable, Codable {
    public var changes: [String: LedgerChange]

    public init(changes: [String: LedgerChange]) { self.changes = changes }

    public func encoded() -> Data? {
        changes.isEmpty ? nil : try? LedgerPayload.encoder.encode(self)
    }
}
