import Foundation

/// A region as CoreLocation monitors it: a proximity UUID, optionally narrowed to one major.
///
/// Monitoring one region per site (UUID + major) gives a callback per site; a UUID-wide region
/// saves region slots (iOS allows 20 per app) but reports every site of that UUID as one.
public struct BeaconRegion: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public var uuid: UUID
    public var major: UInt16?

    public init(uuid: UUID, major: UInt16? = nil) {
        self.uuid = uuid
        self.major = major
    }

    public init(site: SiteBeacon) {
        self.init(uuid: site.uuid, major: site.major)
    }

    /// Whether a site's beacons belong to this region.
    public func contains(_ site: SiteBeacon) -> Bool {
        site.uuid == uuid && (major == nil || major == site.major)
    }

    public var description: String {
        major.map { "\(uuid.uuidString):\($0)" } ?? uuid.uuidString
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.uuid != rhs.uuid { return lhs.uuid.uuidString < rhs.uuid.uuidString }
        return (lhs.major.map(Int.init) ?? -1) < (rhs.major.map(Int.init) ?? -1)
    }
}

/// What CoreLocation says about a region (`CLRegionState`).
public enum RegionState: String, Sendable, Codable, Hashable {
    case inside, outside, unknown
}
