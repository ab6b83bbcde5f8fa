import AttendanceModels
import Foundation

/// Every phone–beacon channel of the world, created when first needed. Each channel has its own
/// seed derived from (world seed, phone, beacon), so what one phone hears does not depend on the
/// order in which phones are simulated.
public struct RadioEnvironment: Sendable {
    /// One installed beacon, placed in the shared plane.
    public struct PlacedBeacon: Hashable, Sendable {
        public var siteIndex: Int
        public var identity: BeaconIdentity
        public var position: Position
        public var spec: SimulatedBeacon
    }

    /// What one ranging second reports for one beacon (0: not heard).
    public struct Sample: Hashable, Sendable {
        public var beacon: BeaconIdentity
        public var siteIndex: Int
        public var rssi: Int
    }

    /// Beyond this no packet is ever heard (the packet loss is ~1 long before): not sampled.
    public static let hearingLimitMeters = 100.0

    public let beacons: [PlacedBeacon]
    private let world: WorldSpec
    private let seed: UInt64
    private var links: [Int: [Int: (link: RadioLink, lastTime: Double)]] = [:]

    public init(world: WorldSpec, seed: UInt64) {
        self.world = world
        self.seed = seed
        beacons = world.sites.enumerated().flatMap { index, site in
            site.beacons.map { beacon in
                PlacedBeacon(siteIndex: index,
                             identity: BeaconIdentity(uuid: UUID(uuidString: site.uuid) ?? SiteBeacon.defaultUUID, major: site.major, minor: beacon.minor),
                             position: Position(x: site.originXMeters + beacon.xMeters, y: site.originYMeters + beacon.yMeters), spec: beacon)
            }
        }
    }

    /// One second of ranging at `time` for `phone` at `position`: a sample per beacon within
    /// hearing range (rssi 0 when nothing was heard), none for the rest.
    public mutating func scan(phone: Int, at time: Double, position: Position, shieldedDB: Double, bodyLossDB: Double) -> [Sample] {
        var samples: [Sample] = []
        for (index, placed) in beacons.enumerated() {
            let distance = placed.position.distance(to: position)
            guard distance <= Self.hearingLimitMeters else { continue }
            var entry = links[phone]?[index] ?? (RadioLink(parameters: world.sites[placed.siteIndex].radio, beacon: placed.spec,
                                                           seed: Self.linkSeed(seed, phone: phone, beacon: index)), time - 1)
            let rssi = entry.link.sample(atMeters: distance, bodyLossDB: bodyLossDB + shieldedDB, seconds: max(1, time - entry.lastTime))
            entry.lastTime = time
            links[phone, default: [:]][index] = entry
            samples.append(Sample(beacon: placed.identity, siteIndex: placed.siteIndex, rssi: rssi))
        }
        return samples
    }

    /// Forgets a phone's channels (it left the area; shadowing will be drawn afresh).
    public mutating func forget(phone: Int) { links[phone] = nil }

    static func linkSeed(_ seed: UInt64, phone: Int, beacon: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(phone) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(beacon) &* 0xC2B2_AE3D_27D4_EB4F))
        return mixer.next()
    }
}
