import Foundation

/// The radio of one site, as the simulator models it (docs/SIMULATOR.md). Every figure has its unit in
/// its name; the defaults are the "as hard as real offices" world the issue asks for.
public struct RadioParameters: Hashable, Sendable, Codable {
    /// Log-distance path-loss exponent: 2 in free space, up to 3.5 in cluttered offices.
    public var pathLossExponent: Double = 2.7
    /// Log-normal shadowing, standard deviation (walls, furniture, people).
    public var shadowingSigmaDB: Double = 6
    /// How long shadowing stays correlated for a phone that does not move (a first-order
    /// Gauss–Markov process), and over how many metres it decorrelates as the phone moves.
    public var shadowingCorrelationSeconds: Double = 150
    public var shadowingDecorrelationMeters: Double = 5
    /// Noise drawn afresh for every ranging second (people moving, the phone's own receiver),
    /// on top of the shadowing: it decorrelates consecutive readings.
    public var fastNoiseSigmaDB: Double = 1.5
    /// Fast (multipath) fading is Rayleigh: its dB value has a long tail of deep fades.
    public var rayleighFading = true
    /// Per-packet loss close to the beacon; it grows with distance to `lossAtEdge`.
    public var packetLossNear: Double = 0.05
    /// The distance at which half of the packets are lost.
    public var halfLossDistanceMeters: Double = 25
    /// How sharply loss rises around `halfLossDistanceMeters`.
    public var lossSlopeMeters: Double = 5
    /// The phone's receiver does not report packets weaker than this.
    public var sensitivityDBm: Double = -100
    /// Extra loss while the phone is in a pocket or behind its owner's body (5–15 dB).
    public var bodyLossRangeDB: ClosedRange<Double> = 5...15

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pathLossExponent, shadowingSigmaDB, shadowingCorrelationSeconds, shadowingDecorrelationMeters, fastNoiseSigmaDB, rayleighFading, packetLossNear, halfLossDistanceMeters,
             lossSlopeMeters, sensitivityDBm, bodyLossRangeDB
    }

    /// Missing fields keep their defaults; unknown ones are refused by name.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = RadioParameters()
        pathLossExponent = try c.value(.pathLossExponent, or: d.pathLossExponent)
        shadowingSigmaDB = try c.value(.shadowingSigmaDB, or: d.shadowingSigmaDB)
        shadowingCorrelationSeconds = try c.value(.shadowingCorrelationSeconds, or: d.shadowingCorrelationSeconds)
        shadowingDecorrelationMeters = try c.value(.shadowingDecorrelationMeters, or: d.shadowingDecorrelationMeters)
        fastNoiseSigmaDB = try c.value(.fastNoiseSigmaDB, or: d.fastNoiseSigmaDB)
        rayleighFading = try c.value(.rayleighFading, or: d.rayleighFading)
        packetLossNear = try c.value(.packetLossNear, or: d.packetLossNear)
        halfLossDistanceMeters = try c.value(.halfLossDistanceMeters, or: d.halfLossDistanceMeters)
        lossSlopeMeters = try c.value(.lossSlopeMeters, or: d.lossSlopeMeters)
        sensitivityDBm = try c.value(.sensitivityDBm, or: d.sensitivityDBm)
        bodyLossRangeDB = try c.value(.bodyLossRangeDB, or: d.bodyLossRangeDB)
    }

    /// The probability one advertising packet at `distance` is lost before the receiver.
    public func packetLoss(atMeters distance: Double) -> Double {
        let rising = 1 / (1 + exp(-(distance - halfLossDistanceMeters) / lossSlopeMeters))
        return min(1, packetLossNear + (1 - packetLossNear) * rising)
    }
}

/// One beacon as installed: where it is, how often it advertises, its calibrated power.
public struct SimulatedBeacon: Hashable, Sendable, Codable {
    public var minor: UInt16
    public var xMeters: Double
    public var yMeters: Double
    /// Advertising interval (100 ms to 1 s in practice; more packets per second, steadier RSSI).
    public var advertisingIntervalMilliseconds: Double
    /// Received power at 1 m (the iBeacon "measured power"), typically −59 dBm.
    public var measuredPowerDBm: Double

    public init(minor: UInt16, xMeters: Double, yMeters: Double, advertisingIntervalMilliseconds: Double = 350, measuredPowerDBm: Double = -59) {
        self.minor = minor
        self.xMeters = xMeters
        self.yMeters = yMeters
        self.advertisingIntervalMilliseconds = advertisingIntervalMilliseconds
        self.measuredPowerDBm = measuredPowerDBm
    }
}
