import AttendanceModels
import Foundation

/// The channel between one phone and one beacon, second by second: what iOS ranging would report
/// (CLBeacon's `rssi`, 0 when no packet was heard that second).
///
/// RSSI of a packet = measured power − 10·n·log10(d) + shadowing + fast fading − body loss.
/// Shadowing is correlated over seconds (Gauss–Markov); fading is drawn per packet (Rayleigh);
/// packets are lost with a probability that grows with distance, and below the receiver's
/// sensitivity. iOS reports the mean of the packets it heard in the second.
public struct RadioLink: Sendable {
    public let parameters: RadioParameters
    public let beacon: SimulatedBeacon
    private var shadowingDB: Double
    private var random: SplitMix64

    public init(parameters: RadioParameters, beacon: SimulatedBeacon, seed: UInt64) {
        self.parameters = parameters
        self.beacon = beacon
        random = SplitMix64(seed: seed)
        shadowingDB = 0
        shadowingDB = parameters.shadowingSigmaDB * Self.gaussian(&random)
    }

    /// The mean received power at `distance` before shadowing and fading.
    public func meanRSSI(atMeters distance: Double) -> Double {
        Self.meanRSSI(of: beacon, parameters, atMeters: distance)
    }

    /// The same for any beacon, with no channel (the details' desk figures).
    public static func meanRSSI(of beacon: SimulatedBeacon, _ parameters: RadioParameters, atMeters distance: Double) -> Double {
        beacon.measuredPowerDBm - 10 * parameters.pathLossExponent * log10(max(distance, 0.1))
    }

    /// Advances the channel by `seconds` and returns what one ranging callback reports for a phone
    /// at `distance` metres, `bodyLossDB` behind a body or in a pocket: the rounded mean RSSI of
    /// the packets heard, or 0 when none was.
    /// `sinceLastSeconds` is how long ago the channel was last sampled (shadowing decorrelates
    /// over it); by default the span itself.
    /// `silentFraction` is the share of the span the receiver was silent (`ScanSilences`): each
    /// packet is lost with that probability on top of its own loss.
    /// `movedMeters` is how far the phone moved since then (shadowing also decorrelates over it).
    public mutating func sample(atMeters distance: Double, bodyLossDB: Double, seconds: Double = 1, sinceLastSeconds: Double? = nil,
                                movedMeters: Double = 0, silentFraction: Double = 0) -> Int {
        let (base, packets, loss) = advance(atMeters: distance, bodyLossDB: bodyLossDB, seconds: seconds,
                                            sinceLast: sinceLastSeconds ?? seconds, moved: movedMeters, silentFraction: silentFraction)
        var sum = 0.0
        var heard = 0
        for _ in 0..<packets {
            guard Double.random(in: 0..<1, using: &random) >= loss else { continue }
            let fading = parameters.rayleighFading ? Self.rayleighDB(&random) : 0
            let rssi = base + fading
            guard rssi >= parameters.sensitivityDBm else { continue }
            sum += rssi
            heard += 1
        }
        guard heard > 0 else { return 0 }
        return min(-1, Int((sum / Double(heard)).rounded()))
    }

    /// Advances the channel by `seconds` and says whether any packet was heard in them: what iOS's
    /// region monitoring needs, without the per-packet RSSI (it stops at the first packet heard).
    public mutating func heardAny(atMeters distance: Double, bodyLossDB: Double, seconds: Double, sinceLastSeconds: Double? = nil,
                                  movedMeters: Double = 0, silentFraction: Double = 0) -> Bool {
        let (base, packets, loss) = advance(atMeters: distance, bodyLossDB: bodyLossDB, seconds: seconds,
                                            sinceLast: sinceLastSeconds ?? seconds, moved: movedMeters, silentFraction: silentFraction)
        for _ in 0..<packets {
            guard Double.random(in: 0..<1, using: &random) >= loss else { continue }
            let fading = parameters.rayleighFading ? Self.rayleighDB(&random) : 0
            if base + fading >= parameters.sensitivityDBm { return true }
        }
        return false
    }

    /// Moves the shadowing on by `sinceLast` seconds and `moved` metres: the mean power of the packets of the
    /// `seconds` listened to (with this span's fast noise), how many were sent, and the chance
    /// each is lost.
    private mutating func advance(atMeters distance: Double, bodyLossDB: Double, seconds: Double, sinceLast: Double,
                                  moved: Double, silentFraction: Double) -> (base: Double, packets: Int, loss: Double) {
        let rho = exp(-max(sinceLast, 0) / parameters.shadowingCorrelationSeconds
            - max(moved, 0) / parameters.shadowingDecorrelationMeters)
        shadowingDB = rho * shadowingDB + (1 - rho * rho).squareRoot() * parameters.shadowingSigmaDB * Self.gaussian(&random)
        let fast = parameters.fastNoiseSigmaDB > 0 ? parameters.fastNoiseSigmaDB * Self.gaussian(&random) : 0
        let packets = max(1, Int((seconds * 1_000 / beacon.advertisingIntervalMilliseconds).rounded(.down)))
        let loss = parameters.packetLoss(atMeters: distance)
        let silent = min(1, max(0, silentFraction))
        return (meanRSSI(atMeters: distance) + shadowingDB + fast - bodyLossDB, packets, loss + (1 - loss) * silent)
    }

    /// A standard normal draw (Box–Muller).
    static func gaussian(_ random: inout SplitMix64) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// The power of a Rayleigh-faded packet relative to its mean, in dB (mean power 1): mostly
    /// within a few dB, with occasional fades of 10–20 dB.
    static func rayleighDB(_ random: inout SplitMix64) -> Double {
        let power = -log(Double.random(in: Double.ulpOfOne..<1, using: &random))
        return 10 * log10(power)
    }
}
