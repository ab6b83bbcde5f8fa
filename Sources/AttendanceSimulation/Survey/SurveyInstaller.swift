import AttendanceModels
import Foundation

/// Takes a survey's advice in the simulated world as an installer would: survey every site, put a
/// beacon of the site at the flagged spots (`SurveyFinding.Advice.addBeacon`), survey again, and
/// stop when a survey's advice changes nothing or the rounds are used. Each added beacon goes where
/// it clears most flagged spots (those within `coverMeters`), the same model as the site's first
/// beacon. The other advice, moving or lowering another site's beacon (`moveOrLower`), is taken
/// only for a beacon this installer added: a later survey that blames one lowers its transmit
/// power by the most any spot asks (at most `maximumLoweringDB` below where it was installed). A
/// site's original beacons are left to the people who own them.
public struct SurveyInstaller: Sendable {
    public struct Options: Hashable, Sendable {
        public var walk = SurveyWalk.Options()
        /// Surveys that may add beacons; one more survey checks the last.
        public var rounds = 3
        /// Beacons an installer may add to one site over all rounds.
        public var maximumAddedPerSite = 4
        /// A flagged spot within this distance of an added beacon counts as cleared by it.
        public var coverMeters = 6.0
        /// How far below its installed power an added beacon may be lowered, over all rounds (dB);
        /// 0 never lowers one.
        public var maximumLoweringDB = 12.0

        public init() {}
    }

    /// One survey of every site, and the changes made after it.
    public struct Round: Sendable {
        public var walks: [SurveyWalk]
        /// Per site index, the beacons added on this round's advice.
        public var added: [Int: [SimulatedBeacon]]
        /// The added beacons this round's survey blamed, and how many dB each was lowered.
        public var lowered: [BeaconIdentity: Double] = [:]
    }

    public var options = Options()

    public init(options: Options = Options()) { self.options = options }

    /// Surveys `world` and takes the advice: the world with its added beacons, and every round
    /// (the last one adds nothing: it is the survey after the work).
    public func install(in world: WorldSpec, seed: UInt64) -> (world: WorldSpec, rounds: [Round]) {
        var world = world
        var rounds: [Round] = []
        // The beacons this installer put up, and the power each was installed at.
        var installed: [BeaconIdentity: Double] = [:]
        for round in 0...options.rounds {
            let walks = world.sites.indices.map { siteIndex in
                SurveyWalk.walk(
                    site: siteIndex, of: world, seed: seed, phone: round * world.sites.count + siteIndex,
                    options: options.walk)
            }
            var added: [Int: [SimulatedBeacon]] = [:]
            var lowered: [BeaconIdentity: Double] = [:]
            if round < options.rounds {
                for walk in walks {
                    let site = world.sites[walk.siteIndex]
                    let room = options.maximumAddedPerSite - site.addedBeacons.count
                    let beacons = beacons(clearing: walk, of: site, atMost: room)
                    if !beacons.isEmpty { added[walk.siteIndex] = beacons }
                }
                lowered = lower(blamedBy: walks, in: &world, installed: installed)
            }
            rounds.append(Round(walks: walks, added: added, lowered: lowered))
            if added.isEmpty && lowered.isEmpty { break }
            for (siteIndex, beacons) in added {
                world.sites[siteIndex].addedBeacons += beacons
                for beacon in beacons {
                    installed[identity(of: beacon, at: world.sites[siteIndex])] = beacon.measuredPowerDBm
                }
            }
        }
        return (world, rounds)
    }

    /// Lowers every beacon this installer added (`installed`: its power as installed) that a
    /// flagged spot of `walks` blames (`moveOrLower`): by the most dB any of those spots asks, as
    /// far as `maximumLoweringDB` below its installed power allows. Its own site's next survey shows
    /// what that cost there (decision 0044). Returns what was lowered.
    func lower(
        blamedBy walks: [SurveyWalk], in world: inout WorldSpec, installed: [BeaconIdentity: Double]
    ) -> [BeaconIdentity: Double] {
        var asked: [BeaconIdentity: Double] = [:]
        for finding in walks.flatMap(\.flagged).compactMap(\.finding) {
            for case .moveOrLower(let beacon, let dB) in finding.advice where installed[beacon] != nil {
                asked[beacon] = max(asked[beacon] ?? 0, dB)
            }
        }
        var lowered: [BeaconIdentity: Double] = [:]
        for siteIndex in world.sites.indices {
            let site = world.sites[siteIndex]
            for (index, beacon) in site.addedBeacons.enumerated() {
                let identity = identity(of: beacon, at: site)
                guard let wanted = asked[identity], let power = installed[identity] else { continue }
                let dB = min(wanted, beacon.measuredPowerDBm - (power - options.maximumLoweringDB))
                guard dB > 0 else { continue }
                lowered[identity] = dB
                world.sites[siteIndex].addedBeacons[index].measuredPowerDBm -= dB
            }
        }
        return lowered
    }

    private func identity(of beacon: SimulatedBeacon, at site: SiteSpec) -> BeaconIdentity {
        let siteBeacon = Simulation.siteBeacon(site)
        return BeaconIdentity(uuid: siteBeacon.uuid, major: siteBeacon.major, minor: beacon.minor)
    }

    /// Up to `limit` beacons for `site` placed greedily: each at the flagged spot with the most
    /// flagged spots within `coverMeters` (then the most dB needed), until every flagged spot is
    /// covered.
    func beacons(clearing walk: SurveyWalk, of site: SiteSpec, atMost limit: Int) -> [SimulatedBeacon] {
        var open = walk.flagged.map { (position: $0.position, needed: Self.neededDB($0.finding)) }
        var minor = (site.installedBeacons.map(\.minor).max() ?? 0)
        let model = site.beacons.first ?? SimulatedBeacon(minor: 0, xMeters: 0, yMeters: 0)
        var placed: [SimulatedBeacon] = []
        while !open.isEmpty, placed.count < limit, minor < UInt16.max {
            let scored = open.map { candidate in
                let covered = open.filter { $0.position.distance(to: candidate.position) <= options.coverMeters }
                let needed = covered.reduce(0) { $0 + $1.needed }
                return (position: candidate.position, count: covered.count, needed: needed)
            }
            guard let best = scored.max(by: { ($0.count, $0.needed) < ($1.count, $1.needed) }) else { break }
            minor += 1
            placed.append(
                SimulatedBeacon(
                    minor: minor, xMeters: best.position.x - site.originXMeters,
                    yMeters: best.position.y - site.originYMeters,
                    advertisingIntervalMilliseconds: model.advertisingIntervalMilliseconds,
                    measuredPowerDBm: model.measuredPowerDBm))
            open.removeAll { $0.position.distance(to: best.position) <= options.coverMeters }
        }
        return placed
    }

    static func neededDB(_ finding: SurveyFinding?) -> Double {
        finding?.advice.compactMap { advice -> Double? in
            if case .addBeacon(let dB) = advice { return dB }
            return nil
        }.first ?? 0
    }
}
