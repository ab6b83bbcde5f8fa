import AttendanceEngine
import AttendanceModels
import Foundation

/// iOS monitors at most 20 regions per app, beacon regions and geofences together (Apple,
/// "Monitoring the user's proximity to geographic regions"); a 21st is refused with an error.
/// This decides which ones the location service registers.
public enum RegionBudget {
    public static let iOSLimit = 20

    public struct Plan: Hashable, Sendable {
        public var beaconRegions: [BeaconRegion]
        public var geofences: [SiteGeofence]
        /// Why the plan differs from what was asked (for Diagnostics and telemetry).
        public var notes: [String]

        public var count: Int { beaconRegions.count + geofences.count }
    }

    public struct SiteGeofence: Hashable, Sendable {
        public var site: SiteBeacon
        public var geofence: Geofence
        /// The identifier the region is registered under, from which a callback maps back to the site.
        public var identifier: String { "geofence:\(site.uuid.uuidString):\(site.major)" }

        public init(site: SiteBeacon, geofence: Geofence) {
            self.site = site
            self.geofence = geofence
        }

        /// The site of a geofence identifier, or nil for anything else.
        public static func site(fromIdentifier identifier: String) -> SiteBeacon? {
            let parts = identifier.split(separator: ":")
            guard parts.count == 3, parts[0] == "geofence", let uuid = UUID(uuidString: String(parts[1])), let major = UInt16(parts[2]) else { return nil }
            return SiteBeacon(uuid: uuid, major: major)
        }
    }

    /// Beacon regions first (they are what detects presence): the engine's per-site regions,
    /// collapsed to one region per UUID when they would not leave room. Then the campus geofences
    /// nearest to the phone's last known position, as many as fit; a significant-location change
    /// re-plans as the employee moves between campuses.
    public static func plan(requested: [BeaconRegion], configuration: Configuration, latitude: Double? = nil, longitude: Double? = nil,
                            limit: Int = iOSLimit) -> Plan {
        var notes: [String] = []
        var regions = requested.sorted()
        let fences = configuration.sites.compactMap { site in
            site.geofence.map { SiteGeofence(site: site.beacon(defaultUUID: configuration.proximityUUID), geofence: $0) }
        }
        // Keep at least a couple of slots for geofences when there are any: they wake the app near
        // a campus even before a beacon is heard.
        let reserve = min(fences.count, 2)
        if regions.count > limit - reserve {
            let uuids = Set(regions.map(\.uuid)).sorted { $0.uuidString < $1.uuidString }
            notes.append("\(regions.count) site regions do not fit in \(limit) (with \(reserve) for geofences): monitoring \(uuids.count) UUID-wide region(s); ranging tells the sites apart")
            regions = uuids.map { BeaconRegion(uuid: $0) }
        }
        if regions.count > limit {
            notes.append("\(regions.count) UUID-wide regions exceed \(limit): \(regions.count - limit) not monitored (\(regions.suffix(regions.count - limit).map(\.description).joined(separator: ", ")))")
            regions = Array(regions.prefix(limit))
        }
        var ordered = fences
        if let latitude, let longitude {
            ordered.sort {
                ($0.geofence.distanceMeters(toLatitude: latitude, longitude: longitude), $0.site) < ($1.geofence.distanceMeters(toLatitude: latitude, longitude: longitude), $1.site)
            }
        }
        let room = max(0, limit - regions.count)
        if ordered.count > room {
            notes.append("\(ordered.count) geofences, room for \(room): the \(room) nearest are monitored")
        }
        return Plan(beaconRegions: regions, geofences: Array(ordered.prefix(room)), notes: notes)
    }
}
