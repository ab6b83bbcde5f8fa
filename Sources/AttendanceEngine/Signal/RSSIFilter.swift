import Foundation

/// A smoother for one beacon's RSSI.
///
/// Only heard samples reach a filter: a ranging sample with `rssi == 0` means "not heard this
/// second" and `add` ignores it, leaving the estimate unchanged.
public protocol RSSIFilter: Sendable {
    /// Adds a heard sample taken at `time` and returns the new estimate (dBm).
    @discardableResult mutating func add(rssi: Int, at time: Date) -> Double?
    /// The current estimate, or `nil` before the first heard sample.
    var estimate: Double? { get }
    mutating func reset()
}
