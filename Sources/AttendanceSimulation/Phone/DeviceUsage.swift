import Foundation

/// What a phone did that costs energy, over the simulated days (not the settling after them).
public struct DeviceUsage: Hashable, Sendable, Codable {
    /// Seconds the app had execution time in the background (overlapping grants counted once).
    public var awakeSeconds = 0.0
    /// Seconds the radio scanned for the app (iOS ranging, or a baseline's own scan).
    public var scanSeconds = 0.0
    /// Seconds background location updates were on.
    public var backgroundLocationSeconds = 0.0
    public var wakeups = 0
    public var requests = 0
    public var bytes = 0
    /// Regions monitored × seconds.
    public var monitoredRegionSeconds = 0.0

    public init() {}
}

/// Adds up time the app was awake from grants that may overlap, given in time order.
struct AwakeMeter: Hashable, Sendable {
    private var current: Range<Double>?
    private(set) var closedSeconds = 0.0

    /// The app has execution time from `start` to `end` (it may already have it).
    mutating func awake(from start: Double, until end: Double) {
        guard end > start else { return }
        if let open = current, start <= open.upperBound {
            current = open.lowerBound..<max(open.upperBound, end)
        } else {
            closedSeconds += current.map { $0.upperBound - $0.lowerBound } ?? 0
            current = start..<end
        }
    }

    /// The process ended at `time`: a grant running past it ends there.
    mutating func ended(at time: Double) {
        guard let open = current, open.upperBound > time else { return }
        current = open.lowerBound..<max(open.lowerBound, time)
    }

    /// The total, with the current grant cut at `horizon`.
    func seconds(until horizon: Double) -> Double {
        guard let open = current else { return closedSeconds }
        return closedSeconds + max(0, min(open.upperBound, horizon) - open.lowerBound)
    }
}
