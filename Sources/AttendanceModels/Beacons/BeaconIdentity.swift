import Foundation

/// One physical iBeacon advertisement identity.
public struct BeaconIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// The site this beacon belongs to. Sessions belong to sites, never to minors, because
    /// some beacons rotate their minor every few minutes.
    public var site: SiteBeacon { SiteBeacon(uuid: uuid, major: major) }

    public var description: String { "\(uuid.uuidString):\(major):\(minor)" }
}

/// The radio identity of a work site: the shared proximity UUID plus the site's `major`.
public struct SiteBeacon: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The default proximity UUID shared by every site's beacons.
    public static let defaultUUID = UUID(uuidString: "FDA50693-0000-0000-0000-290995101092")!

    public var uuid: UUID
    public var major: UInt16

    public init(uuid: UUID = SiteBeacon.defaultUUID, major: UInt16) {
        self.uuid = uuid
        self.major = major
    }

    public var description: String { "\(uuid.uuidString):\(major)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.uuid != rhs.uuid { return lhs.uuid.uuidString < rhs.uuid.uuidString }
        return lhs.major < rhs.major
    }
}
