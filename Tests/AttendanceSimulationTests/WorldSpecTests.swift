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
            #expect(site.radio.shadowingCorrelationSeconds == 5)
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
        #expect(world.network.outageHoursMax == 72 && world.network.failureProbability == 0.05 && world.network.serverRestartsPerDay == 1)
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
