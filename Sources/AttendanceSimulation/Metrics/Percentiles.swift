import Foundation

/// Nearest-rank percentiles of a sample (no interpolation, so every figure is a value that
/// occurred). An empty sample reports zeros; its size is reported next to it where it matters.
public struct Percentiles: Hashable, Sendable, Codable {
    public var p50: Double
    public var p95: Double
    public var p99: Double
    public var max: Double

    public init(_ values: [Double]) {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)]
        }
        p50 = rank(50)
        p95 = rank(95)
        p99 = rank(99)
        max = sorted.last ?? 0
    }
}

/// The two percentiles the report gives for per-day figures.
public struct MedianAndP95: Hashable, Sendable, Codable {
    public var p50: Double
    public var p95: Double

    public init(_ values: [Double]) {
        let full = Percentiles(values)
        p50 = full.p50
        p95 = full.p95
    }
}
