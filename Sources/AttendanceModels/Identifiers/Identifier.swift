/// A typed string identifier, so a `SiteID` can't be passed where a `UserID` is expected.
///
/// It encodes as a bare string, which keeps API payloads and snapshots readable.
public struct Identifier<Tag>: Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, Comparable
{
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

// The tags are uninhabited; they exist only to make the identifiers distinct types.
public enum UserTag {}
public enum DeviceTag {}
public enum SiteTag {}
public enum SessionTag {}

public typealias UserID = Identifier<UserTag>
public typealias DeviceID = Identifier<DeviceTag>
/// The server's identifier for a site (distinct from the radio identity `SiteBeacon`).
public typealias SiteID = Identifier<SiteTag>
/// Deterministic per session: derived from user, device, site and check-in time.
public typealias SessionKey = Identifier<SessionTag>
