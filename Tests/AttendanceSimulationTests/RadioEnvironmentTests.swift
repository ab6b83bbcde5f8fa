@testable import AttendanceSimulation
import Foundation
import Testing

/// The world's radio: what a phone hears depends on where it is, not on the order phones are
/// simulated in.
@Suite struct RadioEnvironmentTests {
    static let world = WorldSpec()

    static func heard(_ samples: [RadioEnvironment.Sample], site: Int) -> Bool { samples.contains { $0.siteIndex == site && $0.rssi != 0 } }

    @Test func aPhoneHearsWhatIsNearAndNothingFarAway() {
        var radio = RadioEnvironment(world: Self.world, seed: 1)
        let desk = Position(x: 20, y: 12)   // HQ, 0.5 m from its middle beacon
        var heardHQ = 0
        for second in 0..<60 where Self.heard(radio.scan(phone: 0, at: Double(second), position: desk, shieldedDB: 0, bodyLossDB: 0), site: 0) {
            heardHQ += 1
        }
        // Every second but those in the phone's scan silences (~9 % of the time).
        #expect((45...59).contains(heardHQ))
        #expect(radio.scan(phone: 0, at: 100, position: .away, shieldedDB: 0, bodyLossDB: 0).isEmpty)
        // Shielded (a stairwell): nothing.
        for second in 200..<230 { #expect(!Self.heard(radio.scan(phone: 0, at: Double(second), position: desk, shieldedDB: DayPlanner.outOfCoverageDB, bodyLossDB: 0), site: 0)) }
    }

    /// The details' desk entry: at HQ's wall next to the annex the two sites are about as loud
    /// on average; in the middle of HQ the annex is far quieter; the warehouse, 2 km away on the
    /// same UUID, has no neighbour within hearing.
    @Test func aDeskSaysHowLoudItsSiteAndTheNeighbourAre() {
        let radio = RadioEnvironment(world: Self.world, seed: 1)
        let wall = radio.desk(site: 0, at: Position(x: 39, y: 6))
        #expect(wall.site == "hq" && wall.xMeters == 39 && wall.yMeters == 6)
        let wallMargin = wall.ownDBm - (wall.neighbourDBm ?? -.infinity)
        #expect(abs(wallMargin) < 3)
        let middle = radio.desk(site: 0, at: Position(x: 20, y: 12))
        #expect(middle.ownDBm - (middle.neighbourDBm ?? -.infinity) > 20)
        // HQ's middle beacon (measured power -59 dBm, n = 2.7) at 0.5 m.
        #expect(abs(middle.ownDBm - (-59 - 27 * log10(0.5))) < 1e-9)
        #expect(radio.desk(site: 2, at: Position(x: 2_010, y: 20)).neighbourDBm == nil)
    }

    @Test func withoutSilencesANearPhoneHearsNearlyEverySecond() {
        var world = WorldSpec()
        world.iOS.scanSilencesPerHour = 0
        var radio = RadioEnvironment(world: world, seed: 1)
        let desk = Position(x: 20, y: 12)
        let heard = (0..<60).filter { Self.heard(radio.scan(phone: 0, at: Double($0), position: desk, shieldedDB: 0, bodyLossDB: 0), site: 0) }
        // Both packets of a second are lost together 0.25 % of the time (5 % each).
        #expect(heard.count >= 58)
    }

    @Test func theNeighbourIsHeardThroughTheWallSometimes() {
        var radio = RadioEnvironment(world: Self.world, seed: 2)
        let eastWall = Position(x: 39, y: 8)   // inside HQ, 13 m from the annex's beacon
        var annex = 0
        for second in 0..<600 where Self.heard(radio.scan(phone: 0, at: Double(second), position: eastWall, shieldedDB: 0, bodyLossDB: 0), site: 1) {
            annex += 1
        }
        #expect(annex > 0)
    }

    @Test func whatOnePhoneHearsDoesNotDependOnTheOthers() {
        let desk = Position(x: 10, y: 5)
        var alone = RadioEnvironment(world: Self.world, seed: 3)
        var crowded = RadioEnvironment(world: Self.world, seed: 3)
        for second in 0..<120 {
            _ = crowded.scan(phone: 1, at: Double(second), position: Position(x: 30, y: 20), shieldedDB: 0, bodyLossDB: 8)
            let a = alone.scan(phone: 0, at: Double(second), position: desk, shieldedDB: 0, bodyLossDB: 0)
            let b = crowded.scan(phone: 0, at: Double(second), position: desk, shieldedDB: 0, bodyLossDB: 0)
            #expect(a == b)
        }
    }
}
