import AttendanceModels
import Foundation

/// The world's installed beacons in one plane, and the channels from phones to them. Each
/// phone–beacon channel has its own seed derived from (world seed, phone, beacon, stream), so
/// what one phone hears does not depend on the order in which phones are simulated, and the
/// operating system's monitoring, the app's ranging and a baseline's scanner each draw from a
/// stream of their own (the same world for every policy).
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
    public let world: WorldSpec
    public let seed: UInt64
    private var phones: [Int: PhoneRadio] = [:]

    public init(world: WorldSpec, seed: UInt64) {
        self.world = world
        self.seed = seed
        beacons = world.sites.enumerated().flatMap { index, site in
            site.installedBeacons.map { beacon in
                PlacedBeacon(siteIndex: index,
                             identity: BeaconIdentity(uuid: UUID(uuidString: site.uuid) ?? SiteBeacon.defaultUUID, major: site.major, minor: beacon.minor),
                             position: Position(x: site.originXMeters + beacon.xMeters, y: site.originYMeters + beacon.yMeters), spec: beacon)
            }
        }
    }

    /// The mean RSSI (no shadowing, fading or body loss) of the loudest of a site's beacons at
    /// `position`.
    public func meanLoudestRSSI(site siteIndex: Int, at position: Position) -> Double? {
        let radio = world.sites[siteIndex].radio
        return beacons.filter { $0.siteIndex == siteIndex }.map { placed in
            RadioLink.meanRSSI(of: placed.spec, radio, atMeters: position.distance(to: placed.position))
        }.max()
    }

    /// A desk's entry in the details: its own site's loudest mean RSSI, and the loudest of any
    /// other site of the same UUID within hearing.
    public func desk(site siteIndex: Int, at position: Position) -> SimulationDetails.Desk {
        let own = world.sites[siteIndex]
        let inHearing = { (index: Int) in
            self.beacons.contains { placed in
                placed.siteIndex == index && position.distance(to: placed.position) <= Self.hearingLimitMeters
            }
        }
        let neighbours = world.sites.indices.filter { index in
            index != siteIndex && world.sites[index].uuid == own.uuid && inHearing(index)
        }
        let loudestNeighbour = neighbours.compactMap { meanLoudestRSSI(site: $0, at: position) }.max()
        return SimulationDetails.Desk(site: own.id, xMeters: position.x, yMeters: position.y,
                                      ownDBm: meanLoudestRSSI(site: siteIndex, at: position) ?? -.infinity,
                                      neighbourDBm: loudestNeighbour)
    }

    /// The channels of one phone, for one purpose.
    public func radio(phone: Int, stream: PhoneRadio.Stream) -> PhoneRadio { PhoneRadio(environment: self, phone: phone, stream: stream) }

    /// One second of ranging at `time` for `phone` at `position` (the app's stream).
    public mutating func scan(phone: Int, at time: Double, position: Position, shieldedDB: Double, bodyLossDB: Double) -> [Sample] {
        var radio = phones[phone] ?? self.radio(phone: phone, stream: .app)
        let samples = radio.scan(at: time, position: position, lossDB: shieldedDB + bodyLossDB)
        phones[phone] = radio
        return samples
    }

    static func linkSeed(_ seed: UInt64, phone: Int, beacon: Int, stream: UInt64) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(phone) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(beacon) &* 0xC2B2_AE3D_27D4_EB4F)
            ^ (stream &* 0x1656_67B1_9E37_79F9))
        return mixer.next()
    }
}

/// One phone's channels to every beacon, created when first needed.
public struct PhoneRadio: Sendable {
    /// Who listens: iOS's region monitoring, the app's ranging, or a baseline's own scanner.
    public enum Stream: UInt64, Sendable { case app = 0, operatingSystem = 1, scanner = 2 }

    public let environment: RadioEnvironment
    private let phone: Int
    private let stream: Stream
    private var links: [RadioLink?]
    private var lastTimes: [Double]
    private var lastPositions: [Position?]
    /// The phone's receiver silences: the same for every stream of this phone.
    private var silences: ScanSilences

    init(environment: RadioEnvironment, phone: Int, stream: Stream) {
        self.environment = environment
        self.phone = phone
        self.stream = stream
        silences = ScanSilences(world: environment.world,
                                seed: RadioEnvironment.linkSeed(environment.seed, phone: phone, beacon: Int.max, stream: 0x5113_7CE5))
        links = Array(repeating: nil, count: environment.beacons.count)
        lastTimes = Array(repeating: 0, count: environment.beacons.count)
        lastPositions = Array(repeating: nil, count: environment.beacons.count)
    }

    /// One second of ranging ending at `time`: a sample per beacon within hearing range (rssi 0
    /// when nothing was heard), none for the rest.
    public mutating func scan(at time: Double, position: Position, lossDB: Double) -> [RadioEnvironment.Sample] {
        var samples: [RadioEnvironment.Sample] = []
        let silent = silences.silentFraction(from: time - 1, to: time)
        for (index, placed) in environment.beacons.enumerated() {
            let distance = placed.position.distance(to: position)
            guard distance <= RadioEnvironment.hearingLimitMeters else { continue }
            let since = elapsed(index, to: time, span: 1)
            let rssi = links[index]!.sample(atMeters: distance, bodyLossDB: lossDB, seconds: 1, sinceLastSeconds: since,
                                            movedMeters: moved(index, to: position), silentFraction: silent)
            samples.append(RadioEnvironment.Sample(beacon: placed.identity, siteIndex: placed.siteIndex, rssi: rssi))
        }
        return samples
    }

    /// Whether any packet of site `siteIndex`'s beacons was heard in the `seconds` ending at `time`.
    public mutating func heard(site siteIndex: Int, at time: Double, seconds: Double, position: Position, lossDB: Double) -> Bool {
        var any = false
        let silent = silences.silentFraction(from: time - seconds, to: time)
        for (index, placed) in environment.beacons.enumerated() where placed.siteIndex == siteIndex {
            let distance = placed.position.distance(to: position)
            guard distance <= RadioEnvironment.hearingLimitMeters else { continue }
            let since = elapsed(index, to: time, span: seconds)
            // Every channel moves on, even once one has been heard, so each stays a function of time.
            if links[index]!.heardAny(atMeters: distance, bodyLossDB: lossDB, seconds: seconds, sinceLastSeconds: since,
                                      movedMeters: moved(index, to: position), silentFraction: silent) { any = true }
        }
        return any
    }

    /// The distance from `position` to site `siteIndex`'s nearest beacon.
    public func nearestBeaconMeters(site siteIndex: Int, from position: Position) -> Double {
        environment.beacons.lazy.filter { $0.siteIndex == siteIndex }.map { $0.position.distance(to: position) }.min() ?? .infinity
    }

    /// How far the phone moved since beacon `index` was last sampled.
    private mutating func moved(_ index: Int, to position: Position) -> Double {
        defer { lastPositions[index] = position }
        return lastPositions[index].map { $0.distance(to: position) } ?? 0
    }

    /// The time since beacon `index` was last sampled (a new channel counts from `time − span`),
    /// creating the channel on first use.
    private mutating func elapsed(_ index: Int, to time: Double, span: Double) -> Double {
        if links[index] == nil {
            let placed = environment.beacons[index]
            links[index] = RadioLink(parameters: environment.world.sites[placed.siteIndex].radio, beacon: placed.spec,
                                     seed: RadioEnvironment.linkSeed(environment.seed, phone: phone, beacon: index, stream: stream.rawValue))
            lastTimes[index] = time - span
        }
        let since = time - lastTimes[index]
        lastTimes[index] = time
        return since
    }
}
