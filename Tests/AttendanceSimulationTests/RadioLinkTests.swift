@testable import AttendanceSimulation
import Foundation
import Testing

/// The radio model's shape: seeded, loud near the beacon, silent far away, shadowing correlated
/// over seconds.
@Suite struct RadioLinkTests {
    static let beacon = SimulatedBeacon(minor: 1, xMeters: 0, yMeters: 0, advertisingIntervalMilliseconds: 100, measuredPowerDBm: -59)

    static func samples(_ count: Int, meters: Double, body: Double = 0, seed: UInt64 = 7, parameters: RadioParameters = RadioParameters()) -> [Int] {
        var link = RadioLink(parameters: parameters, beacon: beacon, seed: seed)
        return (0..<count).map { _ in link.sample(atMeters: meters, bodyLossDB: body) }
    }

    @Test func theSameSeedGivesTheSameSamples() {
        #expect(Self.samples(200, meters: 8) == Self.samples(200, meters: 8))
        #expect(Self.samples(200, meters: 8) != Self.samples(200, meters: 8, seed: 8))
    }

    @Test func nearTheBeaconItIsHeardEverySecondAroundTheMeasuredPower() {
        let near = Self.samples(2_000, meters: 1)
        #expect(near.allSatisfy { $0 != 0 })
        let mean = Double(near.reduce(0, +)) / Double(near.count)
        // Mean of per-second means: measured power, less Rayleigh's −2.5 dB mean, give or take shadowing.
        #expect(mean > -66 && mean < -56)
    }

    @Test func farAwayItIsMostlySilentAndABodyMakesItWeaker() {
        let far = Self.samples(2_000, meters: 60)
        #expect(Double(far.filter { $0 == 0 }.count) / 2_000 > 0.9)
        let open = Self.samples(2_000, meters: 5).filter { $0 != 0 }
        let pocket = Self.samples(2_000, meters: 5, body: 10).filter { $0 != 0 }
        let openMean = Double(open.reduce(0, +)) / Double(open.count)
        let pocketMean = Double(pocket.reduce(0, +)) / Double(pocket.count)
        #expect(openMean - pocketMean > 7)
    }

    @Test func shadowingIsCorrelatedFromOneSecondToTheNext() {
        var parameters = RadioParameters()
        parameters.rayleighFading = false
        parameters.packetLossNear = 0
        let values = Self.samples(5_000, meters: 3, parameters: parameters).map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let centred = values.map { $0 - mean }
        let lag1 = zip(centred, centred.dropFirst()).map { $0 * $1 }.reduce(0, +)
        let variance = centred.map { $0 * $0 }.reduce(0, +)
        // exp(−1/5) ≈ 0.82 for a 5 s correlation time.
        #expect(lag1 / variance > 0.7)
    }

    @Test func packetLossGrowsWithDistance() {
        let parameters = RadioParameters()
        #expect(parameters.packetLoss(atMeters: 1) < 0.1)
        #expect(abs(parameters.packetLoss(atMeters: 25) - 0.525) < 0.01)
        #expect(parameters.packetLoss(atMeters: 50) > 0.99)
    }
}
