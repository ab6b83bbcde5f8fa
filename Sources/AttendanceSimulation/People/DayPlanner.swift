import AttendanceModels
import Foundation

/// An employee: where they work, where their desk is, which shift.
public struct EmployeeProfile: Hashable, Sendable, Codable {
    public var id: UserID
    public var siteIndex: Int
    public var desk: Position
    public var nightShift: Bool
}

/// Plans everyone's days from the world's people parameters: arrivals, lunch outside, short
/// trips out of coverage, walk-bys at other sites, night shifts across midnight, days off. The
/// same seed plans the same days.
public struct DayPlanner: Sendable {
    public let world: WorldSpec
    /// Walking speed inside and around the buildings.
    public static let walkingMetersPerSecond = 1.2
    /// A stairwell or a restroom behind concrete: so much loss that no packet is heard, even at a
    /// desk next to a beacon (60 dB was not enough at 0.5 m with shadowing and fading).
    public static let outOfCoverageDB = 100.0
    /// The approach before the door and the walk after it (metres).
    public static let approachMeters = 60.0

    public init(world: WorldSpec) { self.world = world }

    public func profiles(count: Int, seed: UInt64) -> [EmployeeProfile] {
        var random = SplitMix64(seed: seed ^ 0x5EED_0001)
        // Most people work at the first site; the rest spread over the others.
        return (0..<count).map { index in
            let siteIndex = world.sites.count == 1 || Double.random(in: 0..<1, using: &random) < 0.6 ? 0
                : Int.random(in: 1..<world.sites.count, using: &random)
            let site = world.sites[siteIndex]
            let edge = Double.random(in: 0..<1, using: &random) < world.people.edgeDeskFraction
            let range = edge ? world.people.edgeDeskDistanceMetersRange : world.people.deskDistanceMetersRange
            let desk = Self.point(in: site, nearestBeaconWithin: range, random: &random)
            let night = Double.random(in: 0..<1, using: &random) < world.people.nightShiftFraction
            return EmployeeProfile(id: Self.employeeID(index), siteIndex: siteIndex, desk: desk, nightShift: night)
        }
    }

    /// The id of the `index`th employee: emp-0000, emp-0001, …
    public static func employeeID(_ index: Int) -> UserID { UserID(String(format: "emp-%04d", index)) }

    /// The path and ground truth of one employee over `days` days.
    public func timeline(for profile: EmployeeProfile, days: Int, seed: UInt64) -> Timeline {
        var random = SplitMix64(seed: seed ^ Self.stableHash(profile.id.rawValue))
        let people = world.people
        let site = world.sites[profile.siteIndex]
        let door = Position(x: site.originXMeters, y: site.originYMeters + site.zoneDepthMeters / 2)
        let outside = Position(x: door.x - Self.approachMeters, y: door.y)
        var waypoints = [Waypoint(time: 0, position: .away)]
        var presences: [TruePresence] = []

        func walk(from a: Position, to b: Position, at time: inout Double, shielded: Double = 0) {
            time += a.distance(to: b) / Self.walkingMetersPerSecond
            waypoints.append(Waypoint(time: time, position: b, shieldedDB: shielded))
        }

        for day in 0..<days {
            let dayStart = Double(day) * 86_400
            if Double.random(in: 0..<1, using: &random) < people.dayOffProbability { continue }
            var time: Double
            if profile.nightShift {
                time = dayStart + 22 * 3_600 + Double.random(in: -1_800...1_800, using: &random)
            } else {
                time = dayStart + people.arrivalMeanHour * 3_600 + people.arrivalSigmaMinutes * 60 * RadioLink.gaussian(&random)
            }
            let leaveAt = time + Double.random(in: people.shiftHoursRange, using: &random) * 3_600
            // A walk-by at another site on the way in.
            if world.sites.count > 1, Double.random(in: 0..<1, using: &random) < people.walkByProbability {
                let other = world.sites[(profile.siteIndex + Int.random(in: 1..<world.sites.count, using: &random)) % world.sites.count]
                let near = Self.point(outside: other, nearestBeaconWithin: people.walkByDistanceMetersRange, avoiding: world.sites, random: &random)
                let start = time - 1_800
                waypoints.append(Waypoint(time: start - 1, position: .away))
                waypoints.append(Waypoint(time: start, position: near))
                waypoints.append(Waypoint(time: start + Double.random(in: people.walkBySecondsRange, using: &random), position: near))
                waypoints.append(Waypoint(time: start + 1_700, position: .away))
            }
            // Arrive: away, approach, through the door, to the desk.
            waypoints.append(Waypoint(time: time - Self.approachMeters / Self.walkingMetersPerSecond - 1, position: .away))
            waypoints.append(Waypoint(time: time - Self.approachMeters / Self.walkingMetersPerSecond, position: outside))
            waypoints.append(Waypoint(time: time, position: door))
            var presenceStart = time
            walk(from: door, to: profile.desk, at: &time)

            // The working day: short trips, maybe lunch outside, back to the desk each time.
            let lunch = !profile.nightShift && Double.random(in: 0..<1, using: &random) < people.lunchOutsideProbability
            let lunchAt = lunch ? dayStart + Double.random(in: 11.75...13.25, using: &random) * 3_600 : .infinity
            var trips = Self.poisson(mean: people.shortTripsPerDayMean, random: &random)
            while time < leaveAt - 600 {
                let next = min(leaveAt - 600, time + Double.random(in: 1_800...7_200, using: &random))
                waypoints.append(Waypoint(time: next, position: profile.desk))
                time = next
                if time >= lunchAt, lunchAt.isFinite {
                    walk(from: profile.desk, to: door, at: &time)
                    presences.append(TruePresence(employee: profile.id, site: SiteID(site.id), start: presenceStart, end: time))
                    waypoints.append(Waypoint(time: time + 60, position: .away))
                    time += Double.random(in: people.lunchMinutesRange, using: &random) * 60
                    waypoints.append(Waypoint(time: time - 60, position: .away))
                    waypoints.append(Waypoint(time: time, position: door))
                    presenceStart = time
                    walk(from: door, to: profile.desk, at: &time)
                    trips = max(0, trips - 1)
                    continue
                }
                if trips > 0 {
                    trips -= 1
                    // Out of coverage but on site: shielded for 5 s to 5 min.
                    waypoints.append(Waypoint(time: time, position: profile.desk, shieldedDB: Self.outOfCoverageDB))
                    time += Double.random(in: people.shortTripSecondsRange, using: &random)
                    waypoints.append(Waypoint(time: time, position: profile.desk))
                }
            }
            // Leave: desk, door, away.
            waypoints.append(Waypoint(time: max(time, leaveAt - profile.desk.distance(to: door) / Self.walkingMetersPerSecond), position: profile.desk))
            time = max(time, leaveAt - profile.desk.distance(to: door) / Self.walkingMetersPerSecond)
            walk(from: profile.desk, to: door, at: &time)
            presences.append(TruePresence(employee: profile.id, site: SiteID(site.id), start: presenceStart, end: time))
            walk(from: door, to: outside, at: &time)
            waypoints.append(Waypoint(time: time + 1, position: .away))
        }
        waypoints.sort { $0.time < $1.time }
        var timeline = Timeline(employee: profile.id, waypoints: waypoints, presences: presences)
        for (index, other) in world.sites.enumerated() where index != profile.siteIndex {
            let zone = (other.originXMeters, other.originXMeters + other.zoneWidthMeters, other.originYMeters, other.originYMeters + other.zoneDepthMeters)
            timeline.passages += timeline.intervals(inside: zone).map {
                TruePresence(employee: profile.id, site: SiteID(other.id), start: $0.lowerBound, end: $0.upperBound)
            }
        }
        return timeline
    }

    // MARK: - Helpers

    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func poisson(mean: Double, random: inout SplitMix64) -> Int {
        let limit = exp(-mean)
        var product = Double.random(in: 0..<1, using: &random)
        var count = 0
        while product > limit {
            product *= Double.random(in: 0..<1, using: &random)
            count += 1
        }
        return count
    }

    static func beaconPositions(_ site: SiteSpec) -> [Position] {
        site.beacons.map { Position(x: site.originXMeters + $0.xMeters, y: site.originYMeters + $0.yMeters) }
    }

    static func contains(_ site: SiteSpec, _ point: Position) -> Bool {
        point.x >= site.originXMeters && point.x <= site.originXMeters + site.zoneWidthMeters
            && point.y >= site.originYMeters && point.y <= site.originYMeters + site.zoneDepthMeters
    }

    /// A point inside the zone whose nearest beacon is within `range`, or the best of 500 tries.
    static func point(in site: SiteSpec, nearestBeaconWithin range: ClosedRange<Double>, random: inout SplitMix64) -> Position {
        let beacons = beaconPositions(site)
        var best = Position(x: site.originXMeters, y: site.originYMeters)
        var bestMiss = Double.infinity
        for _ in 0..<500 {
            let candidate = Position(x: site.originXMeters + Double.random(in: 0...site.zoneWidthMeters, using: &random),
                                     y: site.originYMeters + Double.random(in: 0...site.zoneDepthMeters, using: &random))
            let nearest = beacons.map { $0.distance(to: candidate) }.min() ?? 0
            if range.contains(nearest) { return candidate }
            let miss = nearest < range.lowerBound ? range.lowerBound - nearest : nearest - range.upperBound
            if miss < bestMiss { bestMiss = miss; best = candidate }
        }
        return best
    }

    /// A point outside the zone whose nearest beacon is within `range` (a corridor, the street),
    /// and outside every zone in `avoiding`: a walk-by enters no site. (Before this, a walk-by of
    /// the annex could stop inside the office next door, where the truth did not count it as a
    /// presence, so a check-in there was scored false.)
    static func point(outside site: SiteSpec, nearestBeaconWithin range: ClosedRange<Double>, avoiding zones: [SiteSpec] = [],
                      random: inout SplitMix64) -> Position {
        let beacons = beaconPositions(site)
        for _ in 0..<500 {
            guard let anchor = beacons.randomElement(using: &random) else { break }
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let distance = Double.random(in: range, using: &random)
            let candidate = Position(x: anchor.x + distance * cos(angle), y: anchor.y + distance * sin(angle))
            let nearest = beacons.map { $0.distance(to: candidate) }.min() ?? 0
            if !contains(site, candidate), !zones.contains(where: { contains($0, candidate) }), range.contains(nearest) { return candidate }
        }
        return Position(x: site.originXMeters - range.upperBound, y: site.originYMeters - range.upperBound)
    }
}
