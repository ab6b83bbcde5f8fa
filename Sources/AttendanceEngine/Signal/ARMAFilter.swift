import Foundation

/// An auto-regressive moving average: `estimate += c · (rssi − estimate)`. The coefficient
/// 0.1 suits ~1 Hz samples (AltBeacon's ArmaRssiFilter default); the first sample seeds it.
public struct ARMAFilter: RSSIFilter, Hashable, Codable {
    public let coefficient: Double
    public private(set) var estimate: Double?

    public init(coefficient: Double = 0.1) {
        precondition(coefficient > 0 && coefficient <= 1, "coefficient must be in (0, 1], got \(coefficient)")
        self.coefficient = coefficient
    }

    @discardableResult
    public mutating func add(rssi: Int, at time: Date) -> Double? {
        guard rssi != 0 else { return estimate }
        let value = Double(rssi)
        estimate = estimate.map { $0 - coefficient * ($0 - value) } ?? value
        return estimate
    }

    public mutating func reset() { estimate = nil }
}
