import AttendanceModels
import AttendanceSync
import Foundation
import Testing

@testable import AttendanceSimulation

/// The people: seeded plans whose ground truth matches their path.
@Suite struct DayPlannerTests {
    static func plan(_ world: WorldSpec = WorldSpec(), people: Int = 40, days: Int = 5, seed: UInt64 = 1) -> [(
        EmployeeProfile, Timeline
    )] {
        let planner = DayPlanner(world: world)
        return planner.profiles(count: people, seed: seed).map {
            ($0, planner.timeline(for: $0, days: days, seed: seed))
        }
    }

    @Test func theSameSeedPlansTheSameDays() {
        #expect(Self.plan().map { $0.1 } == Self.plan().map { $0.1 })
        #expect(Self.plan().map { $0.1 } != Self.plan(seed: 2).map { $0.1 })
    }

    @Test func theGroundTruthIsWhereThePathIsInsideTheZone() {
        let world = WorldSpec()
        for (profile, timeline) in Self.plan(people: 20, days: 3) {
            let site = world.sites[profile.siteIndex]
            #expect(timeline.presences.allSatisfy { $0.site.rawValue == site.id && $0.end > $0.start })
            // Every minute: inside the zone exactly when inside a presence (a minute's tolerance at the door).
            for minute in stride(from: 0.0, to: 3 * 86_400, by: 60) {
                let inside = DayPlanner.contains(site, timeline.position(at: minute).0)
                let present = timeline.presences.contains { $0.start + 60 <= minute && minute <= $0.end - 60 }
                let near = timeline.presences.contains { abs($0.start - minute) < 60 || abs($0.end - minute) < 60 }
                if !near {
                    #expect(inside == present, "\(profile.id) at \(minute): inside \(inside), present \(present)")
                }
            }
        }
    }

    @Test func nightShiftsCrossMidnightAndDaysOffHaveNoPresence() {
        var world = WorldSpec()
        world.people.nightShiftFraction = 1
        let night = Self.plan(world, people: 5, days: 2)
        #expect(night.allSatisfy { $0.0.nightShift })
        let presences: [TruePresence] = night.flatMap { $0.1.presences }
        let crossing = presences.contains { (presence: TruePresence) -> Bool in
            let startDay = Int(presence.start / 86_400)
            let endDay = Int(presence.end / 86_400)
            return startDay != endDay
        }
        #expect(crossing)
        world.people.dayOffProbability = 1
        #expect(Self.plan(world, people: 5, days: 3).allSatisfy { $0.1.presences.isEmpty })
    }

    @Test func edgeDesksAreAtTheEdgeOfCoverage() {
        var world = WorldSpec()
        world.people.edgeDeskFraction = 1
        world.sites = [world.sites[0]]
        for profile in DayPlanner(world: world).profiles(count: 30, seed: 3) {
            let nearest = DayPlanner.beaconPositions(world.sites[0]).map { $0.distance(to: profile.desk) }.min() ?? 0
            #expect((12...18).contains(nearest))
            #expect(DayPlanner.contains(world.sites[0], profile.desk))
        }
    }

    @Test func walkBysPassAnotherSiteWithoutEnteringIt() {
        var world = WorldSpec()
        world.people.walkByProbability = 1
        world.people.dayOffProbability = 0
        for (profile, timeline) in Self.plan(world, people: 10, days: 2) {
            let others = world.sites.indices.filter { $0 != profile.siteIndex }.map { world.sites[$0] }
            #expect(timeline.presences.allSatisfy { $0.site.rawValue == world.sites[profile.siteIndex].id })
            // Some waypoint is 10–20 m from another site's nearest beacon, outside its zone.
            let passes = timeline.waypoints.contains { point in
                others.contains { site in
                    let nearest =
                        DayPlanner.beaconPositions(site).map { $0.distance(to: point.position) }.min() ?? .infinity
                    return (10...20).contains(nearest) && !DayPlanner.contains(site, point.position)
                }
            }
            #expect(passes)
        }
    }

    /// The annex's beacon is 7–12 m from the office's wall: many points 10–20 m from it lie in
    /// the office, where a walk-by would stand inside a site the truth does not count it at.
    @Test func aWalkByStandsInNoSiteAtAll() {
        let world = WorldSpec()
        var random = SplitMix64(seed: 7)
        for site in world.sites {
            for _ in 0..<200 {
                let point = DayPlanner.point(
                    outside: site, nearestBeaconWithin: 10...20, avoiding: world.sites, random: &random)
                let nearest = DayPlanner.beaconPositions(site).map { $0.distance(to: point) }.min() ?? .infinity
                #expect((10...20).contains(nearest))
                #expect(!world.sites.contains { DayPlanner.contains($0, point) }, "\(site.id): \(point)")
            }
        }
    }

    @Test func shortTripsAreShieldedForFiveSecondsToFiveMinutes() {
        let timelines = Self.plan(people: 20, days: 3).map { $0.1 }
        var trips: [Double] = []
        for timeline in timelines {
            for (a, b) in zip(timeline.waypoints, timeline.waypoints.dropFirst()) where a.shieldedDB > 0 {
                trips.append(b.time - a.time)
            }
        }
        #expect(!trips.isEmpty)
        #expect(trips.allSatisfy { (5...300).contains($0) })
    }

    /// The annex is reached through the office (its approach crosses HQ's zone): the truth has
    /// those walks as brief presences at HQ, taken from the path, each the 40 m crossing at
    /// walking speed; HQ's own staff have none.
    @Test func walksThroughAnotherSiteAreInTheTruth() {
        let world = WorldSpec()
        let plans = Self.plan(world, people: 40, days: 2)
        let annex = plans.filter { world.sites[$0.0.siteIndex].id == "annex" }
        #expect(!annex.isEmpty)
        for (_, timeline) in annex where !timeline.presences.isEmpty {
            let crossings = timeline.passages.filter { $0.site.rawValue == "hq" }
            // In on arrival and out at the end of each day (lunch leaves by the annex's own door).
            #expect(
                crossings.count >= 2 && crossings.count % 2 == 0,
                "\(crossings.count) crossings, \(timeline.presences.count) presences")
            for crossing in crossings {
                #expect(abs(crossing.duration - 40 / DayPlanner.walkingMetersPerSecond) < 0.5)
            }
            #expect(timeline.truth.count == timeline.presences.count + timeline.passages.count)
        }
        let office = plans.filter { world.sites[$0.0.siteIndex].id == "hq" }
        #expect(office.allSatisfy { $0.1.passages.isEmpty })
    }

    /// What motion history shows at the exit: the walk out began when the person left the desk;
    /// and after the arrival: the walk in ended at the desk, after the arrival (what a manual
    /// check-in offers).
    @Test func motionHistoryShowsWhenTheWalkOutBeganAndTheWalkInEnded() throws {
        let plans = Self.plan(people: 5, days: 1)
        let (_, timeline) = try #require(plans.first { !$0.1.presences.isEmpty })
        let epoch = Date(timeIntervalSince1970: 0)
        let ports = SimulatedPorts(timeline: timeline, epoch: epoch, clock: SimulatedClock(epoch))
        let departure = try #require(timeline.presences.last).end
        // The last walk out: desk → door → outside; two minutes after the door, 10 minutes back.
        let walk = try #require(ports.latestWalk(before: departure + 120, lookbackMinutes: 10))
        let leftDesk = try #require(timeline.waypoints.last { $0.time <= departure && $0.time < walk.start + 1 })
        #expect(walk.start <= departure && departure - walk.start < 60)
        #expect(abs(walk.start - leftDesk.time) < 0.001)
        #expect(walk.end.map { $0 > walk.start && $0 <= departure + 120 } == true)
        #expect(ports.latestWalk(before: departure + 3_600, lookbackMinutes: 10) == nil)
        #expect(
            ports.motion(at: departure + 120, lookbackMinutes: 10).departedAt == epoch.addingTimeInterval(walk.start))
        // Looked back to a minute before the walk out: it is the first walk begun since; looked
        // back to mid-walk, that walk is under way, not begun.
        #expect(
            ports.firstWalkStart(before: departure + 3_600, lookbackMinutes: (departure + 3_600 - walk.start + 60) / 60)
                == walk.start)
        #expect(
            ports.firstWalkStart(before: departure + 3_600, lookbackMinutes: (departure + 3_600 - walk.start - 1) / 60)
                == nil)

        // Still walking in: no arrival to offer yet; seated: the end of the walk in.
        let arrival = try #require(timeline.presences.first).start
        let seated = try #require(
            timeline.waypoints.first { $0.time > arrival && timeline.position(at: $0.time + 1).0 == $0.position })
        #expect(ports.motion(at: (arrival + seated.time) / 2, lookbackMinutes: 60).arrivedAt == nil)
        let offered = try #require(ports.motion(at: seated.time + 30, lookbackMinutes: 60).arrivedAt)
        #expect(offered == epoch.addingTimeInterval(seated.time))
        #expect(offered.timeIntervalSince(epoch) >= arrival && offered.timeIntervalSince(epoch) - arrival < 120)
    }
}
