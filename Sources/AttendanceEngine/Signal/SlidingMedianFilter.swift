import Foundation

/// The median of the last `windowSize` heard samples: robust to single-sample spikes.
public struct SlidingMedianFilter: RSSIFilter, Hashable, Codable {
    public let windowSize: Int
    private var recent: [Int] = []

    public init(windowSize: Int = 5) {
        precondition(windowSize >= 1, "windowSize must be ≥ 1, got \(windowSize)")
        self.windowSize = windowSize
    }

    @discardableResult
    public mutating func add(rssi: Int, at time: Date) -> Double? {
        guard rssi != 0 else { return estimate }
        recent.append(rssi)
        if recent.count > windowSize { recent.removeFirst(recent.count - windowSize) }
        return estimate
    }

    public var estimate: Double? { SampleStatistics.median(recent) }

    public mutating func reset() { recent.removeAll() }
}
