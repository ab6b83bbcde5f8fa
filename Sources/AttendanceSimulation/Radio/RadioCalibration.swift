import AttendanceModels
import Foundation

/// The default radio held against recordings of real iPhones: a phone lying at a desk logs one
/// beacon every 2–4 s for hours, and the statistics of `RecordingStatistics` are compared with
/// the figures measured on public recordings (docs/SIMULATOR.md, "The radio against real iPhones").
public struct RadioCalibration: Sendable {
    /// One statistic: the real figure, the band the simulator must stay in, and what it gave.
    public struct Row: Hashable, Sendable, Codable {
        public var statistic: String
        public var real: String
        public var band: ClosedRange<Double>
        public var simulated: Double
        public var simulatedRange: ClosedRange<Double>
        public var passes: Bool { band.contains(simulated) }
    }

    /// The figures measured on the real recordings (six of 3.8–7 h logged every 2–4 s; 19
    /// recordings, 290 h, for the longest silence at one position).
    public enum Real {
        public static let deviationSDDB = 4.6
        public static let lag1Autocorrelation = 0.05
        public static let missingFraction = 0.09
        public static let gapP95Seconds = 3.8
        public static let longestGapPerRecordingSeconds = 7.0...38.0
        public static let longestGapOverAllHoursSeconds = 45.0
        public static let allHours = 290.0
    }

    /// The distance of the desk from the beacon: within both the recordings' 0.1–3.4 m and the
    /// simulated desks' 2–10 m.
    public static let deskMeters = 3.0
    public static let recordings = 6
    public static let recordingHours = 5.0

    public let world: WorldSpec
    public let seed: UInt64

    public init(world: WorldSpec = WorldSpec(), seed: UInt64 = 1) {
        self.world = world
        self.seed = seed
    }

    /// One simulated recording: the world's first beacon heard by a phone lying `meters` away
    /// (no body in the way), ranged every second and logged at ticks 2–4 s apart; a tick reads
    /// the ranging callback of the second it falls in.
    public func recording(number: Int, hours: Double, meters: Double = deskMeters) -> [RecordingStatistics.Reading] {
        let site = world.sites[0]
        let channelSeed = RadioEnvironment.linkSeed(seed, phone: number, beacon: 0, stream: 0xCA11)
        var link = RadioLink(parameters: site.radio, beacon: site.beacons[0], seed: channelSeed)
        var silences = ScanSilences(world: world, seed: channelSeed ^ 0x5113_7CE5)
        var ticks = SplitMix64(seed: channelSeed ^ 0x7104)
        var readings: [RecordingStatistics.Reading] = []
        var nextTick = Double.random(in: 2...4, using: &ticks)
        var second = 1.0
        while second <= hours * 3_600 {
            let silent = silences.silentFraction(from: second - 1, to: second)
            let rssi = link.sample(atMeters: meters, bodyLossDB: 0, seconds: 1, silentFraction: silent)
            while nextTick <= second {
                readings.append(.init(time: nextTick, rssi: rssi == 0 ? nil : Double(rssi)))
                nextTick += Double.random(in: 2...4, using: &ticks)
            }
            second += 1
        }
        return readings
    }

    /// Every statistic of the six recordings (mean, and the range over recordings), and the
    /// longest silence over as many hours as the real recordings hold.
    public func rows() -> [Row] {
        let stats = (0..<Self.recordings).map { RecordingStatistics(recording(number: $0, hours: Self.recordingHours)) }
        let longRuns = Int((Real.allHours / Self.recordingHours).rounded(.up))
        let longest =
            (Self.recordings..<(Self.recordings + longRuns)).map {
                RecordingStatistics(recording(number: $0, hours: Self.recordingHours)).longestGapSeconds
            }.max() ?? 0
        func row(_ name: String, _ real: String, _ band: ClosedRange<Double>, _ value: (RecordingStatistics) -> Double)
            -> Row
        {
            let values = stats.map(value)
            let mean = values.reduce(0, +) / Double(values.count)
            return Row(
                statistic: name, real: real, band: band, simulated: mean,
                simulatedRange: (values.min() ?? 0)...(values.max() ?? 0))
        }
        func within25(_ value: Double) -> ClosedRange<Double> { (value * 0.75)...(value * 1.25) }
        let perRecording = Real.longestGapPerRecordingSeconds
        let longestValues = stats.map(\.longestGapSeconds)
        return [
            row(
                "SD of RSSI around a 60 s rolling median (dB)", "4.6 (3.8–5.7)", within25(Real.deviationSDDB),
                \.deviationSDDB),
            row(
                "lag-1 autocorrelation of those deviations", "0.05 (−0.07–0.15)",
                (Real.lag1Autocorrelation - 0.0125)...(Real.lag1Autocorrelation + 0.0125), \.lag1Autocorrelation),
            row(
                "share of logging ticks with nothing heard", "0.09 (0.03–0.14)", within25(Real.missingFraction),
                \.missingFraction),
            row("gap between heard readings, p95 (s)", "3.8", within25(Real.gapP95Seconds), \.gapP95Seconds),
            Row(
                statistic: "longest gap per recording, shortest of them (s)", real: "7–38", band: perRecording,
                simulated: longestValues.min() ?? 0,
                simulatedRange: (longestValues.min() ?? 0)...(longestValues.max() ?? 0)),
            Row(
                statistic: "longest gap per recording, longest of them (s)", real: "7–38", band: perRecording,
                simulated: longestValues.max() ?? 0,
                simulatedRange: (longestValues.min() ?? 0)...(longestValues.max() ?? 0)),
            Row(
                statistic: "longest silence at one position, \(Int(Real.allHours)) h (s)", real: "45",
                band: within25(Real.longestGapOverAllHoursSeconds), simulated: longest,
                simulatedRange: longest...longest),
        ]
    }
}
