import Foundation

/// The statistics that compare a radio with recordings of real iPhones: one receiver logging one
/// advertiser at a fixed position every few seconds. The same definitions are applied to the
/// simulator's recordings and to a real one (`attendance radio-check --recording FILE`).
public struct RecordingStatistics: Hashable, Sendable, Codable {
    /// One logging tick: its time in seconds, and the RSSI read then (nil: nothing was heard).
    public struct Reading: Hashable, Sendable {
        public var time: Double
        public var rssi: Double?

        public init(time: Double, rssi: Double?) {
            self.time = time
            self.rssi = rssi
        }
    }

    /// The half-width of the rolling median the deviations are taken from (a 60 s window).
    public static let medianHalfWindowSeconds = 30.0

    /// The standard deviation of each heard RSSI around the median of the heard readings within
    /// 30 s either side of it (dB).
    public var deviationSDDB: Double
    /// The correlation of each deviation with the next one, over pairs of consecutive ticks that
    /// were both heard (the recording's own step).
    public var lag1Autocorrelation: Double
    /// The share of ticks at which nothing was heard.
    public var missingFraction: Double
    /// The time between consecutive heard readings: its 95th percentile and its longest (s).
    public var gapP95Seconds: Double
    public var longestGapSeconds: Double
    public var hours: Double

    /// Computes the statistics of `readings`, which must be in time order.
    public init(_ readings: [Reading]) {
        let heard = readings.compactMap { reading in reading.rssi.map { (reading.time, $0) } }
        hours = ((readings.last?.time ?? 0) - (readings.first?.time ?? 0)) / 3_600
        missingFraction = readings.isEmpty ? 0 : Double(readings.count - heard.count) / Double(readings.count)
        var gaps: [Double] = []
        for index in heard.indices.dropFirst() { gaps.append(heard[index].0 - heard[index - 1].0) }
        gaps.sort()
        gapP95Seconds = gaps.isEmpty ? 0 : gaps[min(gaps.count - 1, Int((0.95 * Double(gaps.count)).rounded(.up)) - 1)]
        longestGapSeconds = gaps.last ?? 0
        let deviations = Self.deviations(heard)
        deviationSDDB = Self.standardDeviation(deviations.compactMap { $0 })
        lag1Autocorrelation = Self.lag1(readings: readings, deviations: deviations)
    }

    /// Each reading's deviation from its rolling median (nil for a tick that heard nothing),
    /// indexed like the heard readings.
    private static func deviations(_ heard: [(Double, Double)]) -> [Double?] {
        var result: [Double?] = []
        result.reserveCapacity(heard.count)
        var low = 0
        var high = 0
        for (time, rssi) in heard {
            while low < heard.count, heard[low].0 < time - medianHalfWindowSeconds { low += 1 }
            while high < heard.count, heard[high].0 <= time + medianHalfWindowSeconds { high += 1 }
            let window = heard[low..<high].map(\.1).sorted()
            let middle = window.count / 2
            let median = window.count % 2 == 1 ? window[middle] : (window[middle - 1] + window[middle]) / 2
            result.append(rssi - median)
        }
        return result
    }

    /// The lag-1 autocorrelation over consecutive ticks both heard.
    private static func lag1(readings: [Reading], deviations: [Double?]) -> Double {
        var pairs: [(Double, Double)] = []
        var heardIndex = -1
        var previous: Double?
        for reading in readings {
            guard reading.rssi != nil else {
                previous = nil
                continue
            }
            heardIndex += 1
            guard let deviation = deviations[heardIndex] else { continue }
            if let previous { pairs.append((previous, deviation)) }
            previous = deviation
        }
        guard pairs.count > 2 else { return 0 }
        let all = deviations.compactMap { $0 }
        let mean = all.reduce(0, +) / Double(all.count)
        let variance = all.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(all.count)
        guard variance > 0 else { return 0 }
        let covariance = pairs.reduce(0) { $0 + ($1.0 - mean) * ($1.1 - mean) } / Double(pairs.count)
        return covariance / variance
    }

    private static func standardDeviation(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
    }
}
