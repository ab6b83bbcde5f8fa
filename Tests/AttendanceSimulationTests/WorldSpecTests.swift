@testable import AttendanceSimulation
import AttendanceModels
import Foundation
import Testing

/// The built-in world stays at least as hard as the issue describes; a world file changes only
/// what it names, and a misspelt field is an error that names it.
@Suite struct WorldSpecTests {
    @Test func theDefaultWorldIsPinned() {
        let world = WorldSpec()
        #expect(world.validationErrors().isEmpty)
        #expect(world.sites.map(\.id) == ["hq", "annex", "warehouse"])
        for site in world.sites {
            #expect((2...3.5).contains(site.radio.pathLossExponent))
            #expect((4...8).contains(site.radio.shadowingSigmaDB))
            #expect(site.radio.rayleighFading)
            #expect(site.radio.bodyLossRangeDB == 5...15)
            // Calibrated against real iPhones (RadioCalibrationTests): slow shadowing that a phone
            // moving a few metres decorrelates, fresh noise each second.
            #expect(site.radio.shadowingCorrelationSeconds == 150 && site.radio.shadowingDecorrelationMeters == 5)
            #expect(site.radio.fastNoiseSigmaDB == 1.5)
        }
        #expect(world.sites.map(\.radio.pathLossExponent) == [2.7, 2.4, 3.3])
        #expect(world.sites.map(\.radio.shadowingSigmaDB) == [6, 5, 8])
        // Neighbours on the same UUID: the annex is next door to HQ.
        #expect(world.sites[0].uuid == world.sites[1].uuid)
        #expect(world.sites[1].originXMeters - (world.sites[0].originXMeters + world.sites[0].zoneWidthMeters) == 5)
        let people = world.people
        #expect(people.shortTripSecondsRange == 5...300 && people.shortTripsPerDayMean == 4)
        #expect(people.walkByDistanceMetersRange == 10...20 && people.walkByProbability == 0.25)
        #expect(people.edgeDeskFraction == 0.15 && people.edgeDeskDistanceMetersRange == 12...18)
        #expect(people.nightShiftFraction == 0.1 && people.dayOffProbability == 0.15 && people.lunchOutsideProbability == 0.4)
        #expect(people.pocketFraction == 0.5)
        let iOS = world.iOS
        #expect(iOS.exitDelaySeconds == 30 && iOS.backgroundSecondsPerEvent == 10 && iOS.backgroundTaskSeconds == 30)
        #expect(iOS.entryLatencyTailProbability == 0.1 && iOS.entryLatencyTailMaxSeconds == 180)
        #expect(iOS.screenWakesPerDay == 40 && iOS.terminationsPerDay == 0.5)
        #expect(iOS.forceQuitProbabilityPerDay == 0.02 && iOS.rebootProbabilityPerDay == 0.03)
        #expect(iOS.deniedFraction == 0.02 && iOS.whenInUseOnlyFraction == 0.03)
        #expect(iOS.manualOpensPerDay == 2 && iOS.reminderTapProbability == 0.5)
        #expect(iOS.scanSilencesPerHour == 52 && iOS.scanSilenceMinSeconds == 2 && iOS.scanSilenceMeanSeconds == 6)
        #expect(iOS.scanSilenceMaxSeconds == 34)
        #expect(world.network.outageHoursMax == 72 && world.network.failureProbability == 0.05 && world.network.serverRestartsPerDay == 1)
    }

    @Test func theHarderWorldInTheRepositoryIsValidAndHarder() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench/simulator/harder-world.json")
        let harder = try JSONDecoder().decode(WorldSpec.self, from: Data(contentsOf: url))
        let world = WorldSpec()
        #expect(harder.validationErrors().isEmpty)
        #expect(harder.sites.map(\.radio.shadowingSigmaDB) == world.sites.map { $0.radio.shadowingSigmaDB + 3 })
        #expect(harder.people.pocketFraction == 0.8)
        #expect(harder.people.walkByProbability == 2 * world.people.walkByProbability)
        #expect(harder.iOS.terminationsPerDay == 2)
        // Everything else as in the default world.
        var same = harder
        same.sites = world.sites
        same.people.pocketFraction = world.people.pocketFraction
        same.people.walkByProbability = world.people.walkByProbability
        same.iOS.terminationsPerDay = world.iOS.terminationsPerDay
        #expect(same == world)
    }

    @Test func energyCoefficientsAreChecked() throws {
        let json = #"{"energy": {"awakeMilliamps": -1, "batteryMilliampHours": 0}}"#
        let world = try JSONDecoder().decode(WorldSpec.self, from: Data(json.utf8))
        let errors = world.validationErrors()
        #expect(errors.contains("'energy.awakeMilliamps' is -1.0; expected a number ≥ 0"))
        #expect(errors.contains("'energy.batteryMilliampHours' is 0.0; expected a capacity > 0"))
        #expect(throws: (any Error).self) { try JSONDecoder().decode(WorldSpec.self, from: Data(#"{"energy": {"screenMilliamps": 1}}"#.utf8)) }
    }

    @Test func aWorldFileChangesOnlyWhatItNames() throws {
        let json = #"{"people": {"arrivalMeanHour": 7}, "network": {"failureProbability": 0.2}}"#
        let world = try JSONDecoder().decode(WorldSpec.self, from: Data(json.utf8))
        var expected = WorldSpec()
        expected.people.arrivalMeanHour = 7
        expected.network.failureProbability = 0.2
        #expect(world == expected)
        let roundTrip = try JSONDecoder().decode(WorldSpec.self, from: JSONEncoder().encode(WorldSpec()))
        #expect(roundTrip == WorldSpec())
    }

    @Test func aMisspeltFieldIsAnErrorNamingIt() {
        let json = #"{"people": {"arrivalMeanHr": 7}}"#
        do {
            _ = try JSONDecoder().decode(WorldSpec.self, from: Data(json.utf8))
            Issue.record("a misspelt field was accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.hasPrefix("'people.arrivalMeanHr' is not a known field; expected one of arrivalMeanHour,"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func impossibleValuesAreNamed() {
        var world = WorldSpec()
        world.people.dayOffProbability = 1.5
        world.sites[0].uuid = "not-a-uuid"
        #expect(world.validationErrors() == ["'sites[0].uuid' is 'not-a-uuid'; expected a UUID",
                                             "'people.dayOffProbability' is 1.5; expected a probability from 0 to 1"])
    }
}
