import AttendanceEngine
import AttendanceModels
import Foundation

/// The Scanner screen: every beacon heard while it is open (the app ranges continuously then),
/// with its raw and smoothed RSSI, estimated distance and proximity, loudest first. Like the
/// seed documents' Qt scanner, for installers placing beacons and support checking a site.
public struct ScannerModel: Sendable {
    public struct Row: Hashable, Sendable, Identifiable {
        public var id: BeaconIdentity
        public var uuid: String
        public var major: UInt16
        public var minor: UInt16
        /// The site's configured name, if it is one of the employee's sites.
        public var site: String?
        public var rssi: Int
        public var smoothedRSSI: Double
        public var distanceMeters: Double?
        public var proximity: Proximity
        public var lastHeard: Date
        /// Not heard for `staleAfterSeconds`: shown greyed until it is dropped.
        public var stale: Bool

        /// "−67 dBm (avg −70.2)", "2.4 m", "near".
        public var rssiText: String { "\(rssi) dBm (avg \(String(format: "%.1f", smoothedRSSI)))" }
        public var distanceText: String { distanceMeters.map { String(format: $0 < 10 ? "%.1f m" : "%.0f m", $0) } ?? "?" }
    }

    public var staleAfterSeconds: Double = 10
    public var dropAfterSeconds: Double = 60
    public private(set) var rows: [Row] = []
    private var filters: [BeaconIdentity: KalmanFilter] = [:]
    private let estimator: DistanceEstimator
    private let names: [SiteBeacon: String]

    /// The proximity UUIDs the scanner ranges: the default one and every site's own.
    public static func rangedUUIDs(_ status: DeviceStatus?) -> Set<UUID> {
        Set([status?.proximityUUID ?? SiteBeacon.defaultUUID] + (status?.sites.compactMap(\.uuid) ?? []))
    }

    public init(configuration: Configuration, siteNames: [SiteBeacon: String] = [:]) {
        estimator = DistanceEstimator(configuration: configuration)
        names = siteNames
    }

    /// One ranging callback (1 Hz). Beacons reported with rssi 0 were not heard this second.
    public mutating func ranged(_ samples: [BeaconSample], at now: Date) {
        var byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for sample in samples where sample.isHeard {
            var filter = filters[sample.beacon] ?? KalmanFilter()
            let smoothed = filter.add(rssi: sample.rssi, at: now) ?? Double(sample.rssi)
            filters[sample.beacon] = filter
            let distance = estimator.distanceMeters(rssi: smoothed, beacon: sample.beacon)
            byID[sample.beacon] = Row(id: sample.beacon, uuid: sample.beacon.uuid.uuidString, major: sample.beacon.major, minor: sample.beacon.minor,
                                      site: names[sample.beacon.site], rssi: sample.rssi, smoothedRSSI: smoothed, distanceMeters: distance,
                                      proximity: Proximity(distanceMeters: distance), lastHeard: now, stale: false)
        }
        for (id, row) in byID {
            let silence = now.timeIntervalSince(row.lastHeard)
            if silence > dropAfterSeconds {
                byID[id] = nil
                filters[id] = nil
            } else {
                byID[id]?.stale = silence > staleAfterSeconds
            }
        }
        rows = byID.values.sorted { ($0.stale ? 1 : 0, -$0.smoothedRSSI, $0.id.description) < ($1.stale ? 1 : 0, -$1.smoothedRSSI, $1.id.description) }
    }

    /// Closing the screen stops ranging; opening it again starts from nothing.
    public mutating func reset() {
        rows = []
        filters = [:]
    }
}
