import AttendanceModels
import Foundation

/// Spells in which a phone's receiver hears nothing from any beacon, whatever the distance: what
/// recordings of real iPhones at a fixed position show (their scanning pauses), beyond packets
/// lost one by one. Every stream of a phone (iOS's monitoring, the app's ranging, a baseline's
/// scanner) draws the same sequence from the same seed, so all of them meet the same silences.
///
/// A renewal process: a silence lasts `minSeconds` plus an exponential part of mean
/// `meanSeconds − minSeconds`, at most `maxSeconds`; the phone then hears for at least
/// `minHearingSeconds` plus an exponential part, so that `perHour` silences start per hour on
/// average.
public struct ScanSilences: Hashable, Sendable {
    /// Silences are separated by at least this much hearing (they never merge into one).
    public static let minHearingSeconds = 5.0
    /// At most this many silences an hour (each needs its hearing between).
    public static let maxPerHour = 3_600 / (minHearingSeconds * 2)

    public let perHour: Double
    public let minSeconds: Double
    public let meanSeconds: Double
    public let maxSeconds: Double
    private let seed: UInt64
    private var random: SplitMix64
    /// Silences generated so far that may still be asked about, and where generation stands.
    private var upcoming: [Range<Double>] = []
    private var generatedUntil = 0.0
    /// The earliest time that can still be answered without starting over.
    private var horizon = 0.0

    /// The silences `world` gives a phone.
    public init(world: WorldSpec, seed: UInt64) {
        self.init(
            perHour: world.iOS.scanSilencesPerHour, minSeconds: world.iOS.scanSilenceMinSeconds,
            meanSeconds: world.iOS.scanSilenceMeanSeconds, maxSeconds: world.iOS.scanSilenceMaxSeconds, seed: seed)
    }

    public init(perHour: Double, minSeconds: Double, meanSeconds: Double, maxSeconds: Double, seed: UInt64) {
        self.perHour = perHour
        self.minSeconds = minSeconds
        self.meanSeconds = max(meanSeconds, minSeconds)
        self.maxSeconds = max(maxSeconds, minSeconds)
        self.seed = seed
        random = SplitMix64(seed: seed)
    }

    /// The share of `start..<end` the receiver spends silent (0 when there are no silences).
    /// Asked in time order it is cheap; asked before an earlier answer's start, it starts over.
    public mutating func silentFraction(from start: Double, to end: Double) -> Double {
        guard perHour > 0, end > start else { return 0 }
        if start < horizon {
            self = ScanSilences(
                perHour: perHour, minSeconds: minSeconds, meanSeconds: meanSeconds,
                maxSeconds: maxSeconds, seed: seed)
        }
        while generatedUntil <= end { generateNext() }
        upcoming.removeAll { $0.upperBound <= start }
        horizon = max(horizon, start)
        var covered = 0.0
        for silence in upcoming {
            guard silence.lowerBound < end else { break }
            covered += max(0, min(end, silence.upperBound) - max(start, silence.lowerBound))
        }
        return min(1, covered / (end - start))
    }

    private mutating func generateNext() {
        let meanHearing = max(Self.minHearingSeconds, 3_600 / perHour - meanSeconds)
        let hearing = Self.minHearingSeconds + exponential(mean: meanHearing - Self.minHearingSeconds)
        let begins = generatedUntil + hearing
        let lasts = min(maxSeconds, minSeconds + exponential(mean: meanSeconds - minSeconds))
        upcoming.append(begins..<(begins + lasts))
        generatedUntil = begins + lasts
    }

    private mutating func exponential(mean: Double) -> Double {
        guard mean > 0 else { return 0 }
        return -log(Double.random(in: Double.ulpOfOne..<1, using: &random)) * mean
    }
}
