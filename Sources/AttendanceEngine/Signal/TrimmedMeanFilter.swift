import Foundation

/// The mean of the samples heard within the last `windowSeconds`, after dropping the highest
/// and lowest `trimFraction` of them. With 20 s and 10 % it is what AltBeacon's
/// RunningAverageRssiFilter does by default on Android.
public struct TrimmedMeanFilter: RSSIFilter, Hashable, Codable {
    public let windowSeconds: Double
    public let trimFraction: Double
    private var samples: [Sample] = []

    private struct Sample: Hashable, Codable {
        var time: Date
        var rssi: Int
    }

    public init(windowSeconds: Double = 20, trimFraction: Double = 0.1) {
        precondition(windowSeconds > 0, "windowSeconds must be > 0, got \(windowSeconds)")
        precondition((0..<0.5).contains(trimFraction), "trimFraction must be in [0, 0.5), got \(trimFraction)")
        self.windowSeconds = windowSeconds
        self.trimFraction = trimFraction
    }

    @discardableResult
    public mutating func add(rssi: Int, at time: Date) -> Double? {
        guard rssi != 0 else { return estimate }
        samples.append(Sample(time: time, rssi: rssi))
        // Keep samples newer than the window, measured from the newest one.
        let oldestKept = time.addingTimeInterval(-windowSeconds)
        samples.removeAll { $0.time <= oldestKept }
        return estimate
    }

    /// Trims `floor(count × trimFraction)` samples from each end of the sorted window.
    public var estimate: Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map(\.rssi).sorted()
        let trim = Int((Double(sorted.count) * trimFraction).rounded(.down))
        let kept = sorted[trim..<(sorted.count - trim)]
        return Double(kept.reduce(0, +)) / Double(kept.count)
    }

    public mutating func reset() { samples.removeAll() }
}
