import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSimulation

/// The simulator's site survey: a walk on a grid judged by the app's rule, and an installer who
/// adds the beacons it advises, and lowers those it added that a later survey blames, without
/// moving anyone's desk.
@Suite struct SiteSurveyWorldTests {
    @Test func theGridCoversTheZoneHalfASpacingInFromItsWallsInASerpentine() {
        let annex = WorldSpec().sites[1]
        let grid = SurveyWalk.grid(over: annex, spacing: 3)
        #expect(grid.count == 25)
        #expect(grid.first == Position(x: 46.5, y: 1.5))
        // The second row runs back: its first spot is above the first row's last.
        #expect(grid[4] == Position(x: 58.5, y: 1.5) && grid[5] == Position(x: 58.5, y: 4.5))
        #expect(grid.allSatisfy { DayPlanner.contains(annex, $0) })
    }

    @Test func theWallsAreWalkedHalfAMetreInEachCornerOnce() {
        let annex = WorldSpec().sites[1]
        let walls = SurveyWalk.along(annex, inset: 0.5, spacing: 3)
        // 14 m of each wall between the inset corners, in 5 steps of 2.8 m.
        #expect(walls.count == 20)
        #expect(walls.first == Position(x: 45.5, y: 0.5))
        let corners = [Position(x: 45.5, y: 0.5), Position(x: 59.5, y: 0.5), Position(x: 59.5, y: 14.5),
                       Position(x: 45.5, y: 14.5)]
        #expect(corners.allSatisfy { corner in walls.filter { $0 == corner }.count == 1 })
        #expect(walls.allSatisfy { DayPlanner.contains(annex, $0) })
        #expect(walls.allSatisfy { abs($0.x - 45.5) < 1e-9 || abs($0.x - 59.5) < 1e-9 || abs($0.y - 0.5) < 1e-9
                || abs($0.y - 14.5) < 1e-9 })
    }

    @Test func aWalkFlagsTheWallNextToTheNeighbourNotTheFarSide() {
        let world = WorldSpec()
        let walk = SurveyWalk.walk(site: 0, of: world, seed: 1, phone: 0)
        // The 3 m grid's 104 spots, then 42 along the walls.
        #expect(walk.spots.count == 146 && walk.survey.spots.count == 146)
        var gridOnly = SurveyWalk.Options()
        gridOnly.wallMeters = nil
        #expect(SurveyWalk.walk(site: 0, of: world, seed: 1, phone: 0, options: gridOnly).spots.count == 104)
        #expect(walk.survey.site == Simulation.siteBeacon(world.sites[0]))
        // HQ's east half faces the annex 5 m away; its west half is 25 m or more from it.
        let east = walk.flagged.filter { $0.position.x >= 20 }.count
        let west = walk.flagged.filter { $0.position.x < 20 }.count
        #expect(east >= 5 && east > 3 * west, "east \(east), west \(west)")
        for spot in walk.spots {
            #expect(spot.spot.seconds == 30)
            #expect(spot.spot.readings.allSatisfy { (0...1).contains($0.heardShare) && $0.medianRSSI < 0 })
            // The flag is the one rule's verdict on what was recorded there.
            let verdict = SurveyFindings.finding(
                at: spot.spot, site: walk.survey.site,
                otherSites: [
                    Simulation.siteBeacon(world.sites[1]),
                    Simulation.siteBeacon(world.sites[2]),
                ])
            #expect(verdict == spot.finding)
        }
        // The warehouse, 2 km away, is never another site's problem at HQ.
        #expect(walk.flagged.allSatisfy { $0.finding?.neighbour.map { $0.beacon.major != 3 } ?? true })
    }

    @Test func theInstallerAddsBeaconsAtFlaggedSpotsAndSeatsEveryoneAtTheSameDesk() {
        let world = WorldSpec()
        let (surveyed, rounds) = SurveyInstaller().install(in: world, seed: 1)
        #expect(surveyed.validationErrors().isEmpty)
        #expect(rounds.count >= 2 && rounds.last?.added.isEmpty == true)
        for siteIndex in [0, 1] {
            let added = surveyed.sites[siteIndex].addedBeacons
            #expect(!added.isEmpty && added.count <= 4)
            #expect(surveyed.sites[siteIndex].beacons == world.sites[siteIndex].beacons)
            // Each one stands where a survey flagged a spot.
            let flagged = rounds.flatMap { $0.walks.filter { $0.siteIndex == siteIndex }.flatMap(\.flagged) }
                .map {
                    Position(
                        x: $0.position.x - world.sites[siteIndex].originXMeters,
                        y: $0.position.y - world.sites[siteIndex].originYMeters)
                }
            #expect(added.allSatisfy { beacon in flagged.contains(Position(x: beacon.xMeters, y: beacon.yMeters)) })
        }
        // The survey after the work flags fewer of HQ's spots than the first.
        let first = rounds[0].walks[0].flagged.count
        let last = rounds[rounds.count - 1].walks[0].flagged.count
        #expect(last < first, "first \(first), last \(last)")
        // The radio hears the added beacons; the people sit where they sat.
        #expect(
            RadioEnvironment(world: surveyed, seed: 1).beacons.count
                == RadioEnvironment(world: world, seed: 1).beacons.count
                + surveyed.sites.map(\.addedBeacons.count).reduce(0, +))
        #expect(
            DayPlanner(world: surveyed).profiles(count: 200, seed: 7)
                == DayPlanner(world: world).profiles(count: 200, seed: 7))
        // The same seed, the same survey.
        #expect(SurveyInstaller().install(in: world, seed: 1).world == surveyed)
    }

    @Test func theInstallerLowersOnlyBeaconsItAddedThatASurveyBlames() {
        let world = WorldSpec()
        let (surveyed, rounds) = SurveyInstaller().install(in: world, seed: 1)
        // Seed 1: HQ's spots by the wall blame beacons added to the annex.
        #expect(rounds.contains { !$0.lowered.isEmpty })
        #expect(rounds[0].lowered.isEmpty, "the first survey has nothing of the installer's to blame")
        for round in rounds {
            let blamed = Set(
                round.walks.flatMap(\.flagged).compactMap(\.finding).flatMap(\.advice).compactMap { advice in
                    if case .moveOrLower(let beacon, _) = advice { return beacon }
                    return nil
                })
            #expect(round.lowered.allSatisfy { blamed.contains($0.key) && $0.value > 0 })
        }
        for (index, site) in surveyed.sites.enumerated() {
            #expect(site.beacons == world.sites[index].beacons, "the site's own beacons are its owners' to change")
            let installedAt = world.sites[index].beacons[0].measuredPowerDBm
            #expect(site.addedBeacons.allSatisfy { (installedAt - 12...installedAt).contains($0.measuredPowerDBm) })
        }
        // A limit of 0 dB never lowers: every added beacon keeps its installed power.
        var options = SurveyInstaller.Options()
        options.maximumLoweringDB = 0
        let (unlowered, plain) = SurveyInstaller(options: options).install(in: world, seed: 1)
        #expect(plain.allSatisfy { $0.lowered.isEmpty })
        #expect(
            unlowered.sites.allSatisfy { site in
                site.addedBeacons.allSatisfy { $0.measuredPowerDBm == site.beacons[0].measuredPowerDBm }
            })
    }

    @Test func aBlamedBeaconIsLoweredByWhatTheSpotAsksNoFurtherThanTheLimit() {
        var world = WorldSpec()
        world.sites[1].addedBeacons = [SimulatedBeacon(minor: 2, xMeters: 1.5, yMeters: 1.5)]
        let hq = Simulation.siteBeacon(world.sites[0])
        let annex = Simulation.siteBeacon(world.sites[1])
        let added = BeaconIdentity(uuid: annex.uuid, major: annex.major, minor: 2)
        let original = BeaconIdentity(uuid: annex.uuid, major: annex.major, minor: 1)
        // An HQ spot where `neighbour` is heard `louderBy` dB above HQ's own -80 dBm.
        func walk(_ neighbour: BeaconIdentity, louderBy dB: Int) -> SurveyWalk {
            let readings = [
                SurveyReading.of(
                    BeaconIdentity(uuid: hq.uuid, major: hq.major, minor: 1), rssi: Array(repeating: -80, count: 30),
                    seconds: 30),
                SurveyReading.of(neighbour, rssi: Array(repeating: -80 + dB, count: 30), seconds: 30),
            ].compactMap { $0 }
            let spot = SurveySpot(
                label: "by the wall", kind: .desk, recordedAt: Date(timeIntervalSince1970: 0), seconds: 30,
                readings: readings)
            let finding = SurveyFindings.finding(at: spot, site: hq)
            return SurveyWalk(
                siteIndex: 0, survey: SiteSurvey(site: hq, spots: [spot]),
                spots: [SurveyWalk.Spot(position: Position(x: 38, y: 2), spot: spot, finding: finding)])
        }
        let installer = SurveyInstaller()
        let installed = [added: -59.0]
        // 2 dB louder asks 8 dB (6 dB of margin plus 2).
        var lowered = world
        #expect(installer.lower(blamedBy: [walk(added, louderBy: 2)], in: &lowered, installed: installed) == [added: 8])
        #expect(lowered.sites[1].addedBeacons[0].measuredPowerDBm == -67)
        // Asked for 8 more, it goes only as far as 12 dB below its installed power.
        #expect(installer.lower(blamedBy: [walk(added, louderBy: 2)], in: &lowered, installed: installed) == [added: 4])
        #expect(lowered.sites[1].addedBeacons[0].measuredPowerDBm == -71)
        #expect(installer.lower(blamedBy: [walk(added, louderBy: 2)], in: &lowered, installed: installed).isEmpty)
        // The annex's own beacon, blamed the same way, is not the installer's to change.
        var untouched = world
        #expect(installer.lower(blamedBy: [walk(original, louderBy: 2)], in: &untouched, installed: installed).isEmpty)
        #expect(untouched == world)
    }

    @Test func theInstallerKeepsToItsLimit() {
        var options = SurveyInstaller.Options()
        options.maximumAddedPerSite = 1
        let (surveyed, _) = SurveyInstaller(options: options).install(in: WorldSpec(), seed: 2)
        #expect(surveyed.sites.allSatisfy { $0.addedBeacons.count <= 1 })
        options.rounds = 0
        let (untouched, rounds) = SurveyInstaller(options: options).install(in: WorldSpec(), seed: 2)
        #expect(untouched == WorldSpec() && rounds.count == 1)
    }

    @Test func aSurveyedWorldRoundTripsThroughItsFileAndAMinorTwiceIsAnError() throws {
        let (surveyed, _) = SurveyInstaller().install(in: WorldSpec(), seed: 1)
        let decoded = try JSONDecoder().decode(WorldSpec.self, from: try JSONEncoder().encode(surveyed))
        #expect(decoded == surveyed)
        var twice = WorldSpec()
        twice.sites[1].addedBeacons = [SimulatedBeacon(minor: 1, xMeters: 1, yMeters: 1)]
        #expect(
            twice.validationErrors() == [
                "'sites[1]' beacons and addedBeacons have minors [1, 1]; expected each minor once"
            ])
    }
}
