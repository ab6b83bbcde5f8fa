import AttendanceModels
import Foundation

/// An installer's walk through one simulated site with the app in survey mode (docs/FIELD-TEST.md,
/// "Site survey"): spots on a grid across the site's zone, the phone held still in hand at each for
/// `secondsPerSpot`, every beacon's median RSSI and heard share kept as the app keeps them
/// (`SurveyReading.of`), and each spot judged by the one rule (`SurveyFindings`). The phone has
/// channels of its own in the simulated radio, so the walk meets the same shadowing and fading as
/// the employees' phones, and the same noise a real survey has.
public struct SurveyWalk: Sendable {
    /// A spot of the walk: where it was, what was heard, and its problem if it has one.
    public struct Spot: Sendable {
        public var position: Position
        public var spot: SurveySpot
        public var finding: SurveyFinding?
    }

    public var siteIndex: Int
    public var survey: SiteSurvey
    public var spots: [Spot]

    public var flagged: [Spot] { spots.filter { $0.finding != nil } }

    /// How the installer walks.
    public struct Options: Hashable, Sendable {
        /// The spacing of the spots across the zone (metres).
        public var gridMeters = 3.0
        /// How long the phone is held still at each spot (the app asks for at least 10 s).
        public var secondsPerSpot = 30
        /// Desks by the walls: after the grid, spots along each wall this far in from it, about
        /// `gridMeters` apart, as an installer surveys every desk (nil: the grid alone, whose outer
        /// spots are half a spacing in and miss a desk against the wall).
        public var wallMeters: Double? = 0.5

        public init() {}
    }

    /// Walks site `siteIndex` of `world` with the surveyor's phone number `phone` (a phone of its
    /// own per walk, so a second walk is a second, independent survey).
    public static func walk(
        site siteIndex: Int, of world: WorldSpec, seed: UInt64, phone: Int, options: Options = Options()
    ) -> SurveyWalk {
        let site = world.sites[siteIndex]
        let own = Simulation.siteBeacon(site)
        let others = Set(world.sites.indices.filter { $0 != siteIndex }.map { Simulation.siteBeacon(world.sites[$0]) })
        var radio = RadioEnvironment(world: world, seed: seed).radio(phone: phone, stream: .scanner)
        var time = 0.0
        var last: Position?
        var spots: [Spot] = []
        let wallSpots = options.wallMeters.map { along(site, inset: $0, spacing: options.gridMeters) } ?? []
        for position in grid(over: site, spacing: options.gridMeters) + wallSpots {
            time += last.map { $0.distance(to: position) / DayPlanner.walkingMetersPerSecond } ?? 0
            last = position
            var heard: [BeaconIdentity: [Int]] = [:]
            var order: [BeaconIdentity] = []
            for _ in 0..<options.secondsPerSpot {
                time += 1
                for sample in radio.scan(at: time, position: position, lossDB: 0) where sample.rssi != 0 {
                    if heard[sample.beacon] == nil { order.append(sample.beacon) }
                    heard[sample.beacon, default: []].append(sample.rssi)
                }
            }
            let readings = order.compactMap {
                SurveyReading.of($0, rssi: heard[$0] ?? [], seconds: options.secondsPerSpot)
            }
            .sorted { $0.medianRSSI > $1.medianRSSI }
            let spot = SurveySpot(
                label: String(
                    format: "x %.1f m, y %.1f m", position.x - site.originXMeters, position.y - site.originYMeters),
                kind: .desk, recordedAt: Date(timeIntervalSince1970: time), seconds: options.secondsPerSpot,
                readings: readings)
            spots.append(
                Spot(
                    position: position, spot: spot,
                    finding: SurveyFindings.finding(at: spot, site: own, otherSites: others)))
        }
        return SurveyWalk(siteIndex: siteIndex, survey: SiteSurvey(site: own, spots: spots.map(\.spot)), spots: spots)
    }

    /// The spots along a site's walls, `inset` in from them and about `spacing` apart, walked once
    /// round clockwise from the origin's corner (each corner once).
    static func along(_ site: SiteSpec, inset: Double, spacing: Double) -> [Position] {
        let width = max(0, site.zoneWidthMeters - 2 * inset), depth = max(0, site.zoneDepthMeters - 2 * inset)
        func steps(_ length: Double) -> [Double] {
            let count = max(1, Int((length / spacing).rounded(.up)))
            return (0..<count).map { Double($0) * length / Double(count) }
        }
        let x0 = site.originXMeters + inset, y0 = site.originYMeters + inset
        let south = steps(width).map { Position(x: x0 + $0, y: y0) }
        let east = steps(depth).map { Position(x: x0 + width, y: y0 + $0) }
        let north = steps(width).map { Position(x: x0 + width - $0, y: y0 + depth) }
        let west = steps(depth).map { Position(x: x0, y: y0 + depth - $0) }
        return south + east + north + west
    }

    /// The spots across a site's zone, `spacing` apart and half a spacing in from its walls, walked
    /// row by row in a serpentine.
    static func grid(over site: SiteSpec, spacing: Double) -> [Position] {
        func steps(_ length: Double) -> [Double] {
            let count = max(1, Int((length / spacing).rounded(.down)))
            let margin = (length - Double(count - 1) * spacing) / 2
            return (0..<count).map { margin + Double($0) * spacing }
        }
        let xs = steps(site.zoneWidthMeters)
        return steps(site.zoneDepthMeters).enumerated().flatMap { row, y in
            (row.isMultiple(of: 2) ? xs : xs.reversed()).map {
                Position(x: site.originXMeters + $0, y: site.originYMeters + y)
            }
        }
    }
}
