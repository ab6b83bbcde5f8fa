import AttendanceModels
import Foundation

/// What the `hindsight` policy's estimator (`HindsightEstimator`) assumes about the world: for
/// each presence state (away, or at one of the sites), how the loudest beacon of every site
/// sounds in one ranging second; how often the phone's receiver falls silent and for how long;
/// and how likely a walking second is to cross a door. Derived from the world file only (its
/// radio, its geometry, its scan silences, its walking speed), never from a seed's truth, and
/// never tuned per seed.
public struct HindsightModel: Hashable, Sendable {
    /// How one site's loudest beacon sounds in one second, in one presence state: nothing heard
    /// with `nothing`, otherwise an RSSI around `meanDBm` (normal, `sdDB`), with a small share of
    /// outliers anywhere in the receiver's range (deep fades, a lucky packet).
    public struct Emission: Hashable, Sendable {
        public var nothing: Double
        public var meanDBm: Double
        public var sdDB: Double

        public init(nothing: Double, meanDBm: Double, sdDB: Double) {
            self.nothing = min(max(nothing, 1e-3), 1 - 1e-4)
            self.meanDBm = meanDBm
            self.sdDB = max(sdDB, 2)
        }

        /// The log-likelihood of one second's reading (nil: nothing heard).
        func logLikelihood(_ rssi: Int?) -> Double {
            guard let rssi else { return log(nothing) }
            let z = (Double(rssi) - meanDBm) / sdDB
            let normal = exp(-0.5 * z * z) / (sdDB * (2 * Double.pi).squareRoot())
            let mixed = (1 - HindsightModel.outlierShare) * normal + HindsightModel.outlierShare / HindsightModel.spanDB
            return log(1 - nothing) + log(mixed)
        }
    }

    /// The share of heard seconds that are outliers, spread uniformly over `spanDB`.
    static let outlierShare = 0.01
    static let spanDB = 70.0

    /// Per site heard: its loudest beacon near a site but outside it (approaching, passing by).
    public var away: [Emission]
    /// The share of the time away spent near a site (within hearing): the rest is far, where
    /// nothing is ever heard.
    public var awayNearShare: Double
    /// `atSite[s][k]`: site k's loudest beacon while at site s.
    public var atSite: [[Emission]]
    /// The probability that a walking second changes the presence state (to each other state).
    public var switchWhileWalking: Double
    /// A scan silence (`ScanSilences`: the receiver hears no beacon at all) starts in a second
    /// with this probability, and one under way ends with that.
    public var silenceStart: Double
    public var silenceEnd: Double
    /// Runs of one presence shorter than this are not sessions, and a session is not split by a
    /// gap shorter than this.
    public var minimumSessionSeconds: Double

    public var sites: Int { atSite.count }

    public init(
        away: [Emission], awayNearShare: Double = 1, atSite: [[Emission]], switchWhileWalking: Double,
        silenceStart: Double, silenceEnd: Double, minimumSessionSeconds: Double
    ) {
        self.away = away
        self.awayNearShare = min(max(awayNearShare, 1e-6), 1)
        self.atSite = atSite
        self.switchWhileWalking = switchWhileWalking
        self.silenceStart = silenceStart
        self.silenceEnd = silenceEnd
        self.minimumSessionSeconds = minimumSessionSeconds
    }

    /// The model of `world`:
    /// - away is near a site for `awayNearShare` of its time (from the world's approach, lunches
    ///   outside, walk-bys and shift length), far from every beacon for the rest;
    /// - the emissions come from the world's own radio (`RadioLink`: path loss, shadowing, fading,
    ///   packet loss, sensitivity, body loss half of the time as `pocketFraction` says) sampled at
    ///   a grid of positions in each site's zone, and for `away` in a band of 20 m around the
    ///   zones (where an approach or a walk-by is heard); far away nothing is heard in any state's
    ///   favour but away's;
    /// - silences from the world's scan-silence rate and mean length;
    /// - a walk crosses one door in about an approach's walk (`approachMeters` at walking speed);
    /// - sessions last at least half of the shortest stay the score counts
    ///   (`PresenceScore.minimumPresenceSeconds`).
    public init(world: WorldSpec) {
        var sampler = EmissionSampler(world: world)
        atSite = world.sites.indices.map { sampler.emissions(at: Self.grid(inside: world.sites[$0]), zone: $0) }
        away = sampler.emissions(at: Self.band(around: world.sites, meters: 20), zone: nil)
        // Near a site while away: the approach and the walk out (and again around lunch outside),
        // and a walk-by; out of the rest of the day.
        let people = world.people
        let approach = DayPlanner.approachMeters / DayPlanner.walkingMetersPerSecond
        let near = 2 * approach * (1 + people.lunchOutsideProbability)
            + people.walkByProbability * (people.walkBySecondsRange.lowerBound + people.walkBySecondsRange.upperBound) / 2
        let shift = (people.shiftHoursRange.lowerBound + people.shiftHoursRange.upperBound) / 2 * 3_600
        awayNearShare = min(1, max(1e-6, near / max(3_600, 86_400 - shift)))
        switchWhileWalking = DayPlanner.walkingMetersPerSecond / DayPlanner.approachMeters
        let iOS = world.iOS
        // As `ScanSilences` draws them: hearing between silences lasts 3,600 / rate − mean silence.
        let meanHearing = max(
            ScanSilences.minHearingSeconds, 3_600 / max(iOS.scanSilencesPerHour, 1e-9) - iOS.scanSilenceMeanSeconds)
        silenceStart = iOS.scanSilencesPerHour > 0 ? min(0.5, 1 / meanHearing) : 1e-9
        silenceEnd = 1 / max(iOS.scanSilenceMeanSeconds, 1)
        minimumSessionSeconds = PresenceScore.minimumPresenceSeconds / 2
    }

    /// About 400 points spread evenly over a site's zone.
    static func grid(inside site: SiteSpec) -> [Position] {
        let step = max(0.5, (site.zoneWidthMeters * site.zoneDepthMeters / 400).squareRoot())
        var points: [Position] = []
        var x = site.originXMeters + step / 2
        while x < site.originXMeters + site.zoneWidthMeters {
            var y = site.originYMeters + step / 2
            while y < site.originYMeters + site.zoneDepthMeters {
                points.append(Position(x: x, y: y))
                y += step
            }
            x += step
        }
        return points
    }

    /// Points within `meters` of a zone but inside none, 2 m apart.
    static func band(around sites: [SiteSpec], meters: Double) -> [Position] {
        var points: [Position] = []
        for site in sites {
            var x = site.originXMeters - meters
            while x <= site.originXMeters + site.zoneWidthMeters + meters {
                var y = site.originYMeters - meters
                while y <= site.originYMeters + site.zoneDepthMeters + meters {
                    let point = Position(x: x, y: y)
                    if !sites.contains(where: { DayPlanner.contains($0, point) }) { points.append(point) }
                    y += 2
                }
                x += 2
            }
        }
        return points
    }
}

/// Samples the world's radio at given positions: per site heard, the share of seconds nothing was
/// heard, and the mean and spread of the loudest beacon's RSSI when something was. Deterministic:
/// each position's channels have fixed seeds.
struct EmissionSampler {
    let world: WorldSpec
    let environment: RadioEnvironment
    /// Seconds sampled per position (shadowing is drawn afresh at each position).
    static let secondsPerPosition = 20

    init(world: WorldSpec) {
        self.world = world
        environment = RadioEnvironment(world: world, seed: 0x41D5_1647)
    }

    mutating func emissions(at positions: [Position], zone: Int?) -> [HindsightModel.Emission] {
        let sites = world.sites.count
        var nothing = [Double](repeating: 0, count: sites)
        var sum = [Double](repeating: 0, count: sites)
        var squares = [Double](repeating: 0, count: sites)
        var seconds = 0.0
        var random = SplitMix64(seed: 0xB0D1_1055 ^ UInt64(zone.map { $0 + 1 } ?? 0))
        for (index, position) in positions.enumerated() {
            let bodySite = zone ?? nearestSite(to: position)
            let inPocket = Double.random(in: 0..<1, using: &random) < world.people.pocketFraction
            let loss = inPocket ? Double.random(in: world.sites[bodySite].radio.bodyLossRangeDB, using: &random) : 0
            var links = environment.beacons.enumerated().compactMap {
                (beaconIndex, placed) -> (Int, Double, RadioLink)? in
                let distance = placed.position.distance(to: position)
                guard distance <= RadioEnvironment.hearingLimitMeters else { return nil }
                let seed = RadioEnvironment.linkSeed(environment.seed, phone: index, beacon: beaconIndex, stream: 7)
                let link = RadioLink(parameters: world.sites[placed.siteIndex].radio, beacon: placed.spec, seed: seed)
                return (placed.siteIndex, distance, link)
            }
            for _ in 0..<Self.secondsPerPosition {
                var loudest = [Int?](repeating: nil, count: sites)
                for link in links.indices {
                    let rssi = links[link].2.sample(atMeters: links[link].1, bodyLossDB: loss)
                    guard rssi != 0 else { continue }
                    loudest[links[link].0] = max(loudest[links[link].0] ?? Int.min, rssi)
                }
                seconds += 1
                for site in 0..<sites {
                    guard let rssi = loudest[site] else {
                        nothing[site] += 1
                        continue
                    }
                    sum[site] += Double(rssi)
                    squares[site] += Double(rssi * rssi)
                }
            }
        }
        return (0..<sites).map { site in
            let heard = seconds - nothing[site]
            guard heard >= 2 else {
                return HindsightModel.Emission(
                    nothing: 1, meanDBm: world.sites[site].radio.sensitivityDBm, sdDB: 6)
            }
            let mean = sum[site] / heard
            let variance = max(0, squares[site] / heard - mean * mean)
            return HindsightModel.Emission(
                nothing: nothing[site] / max(seconds, 1), meanDBm: mean, sdDB: variance.squareRoot())
        }
    }

    private func nearestSite(to position: Position) -> Int {
        environment.beacons.min { $0.position.distance(to: position) < $1.position.distance(to: position) }?
            .siteIndex ?? 0
    }
}
