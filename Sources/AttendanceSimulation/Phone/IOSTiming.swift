import AttendanceModels
import Foundation

/// Draws the timings iOS imposes (docs/ARCHITECTURE.md, "What iOS does") from the world's `IOSSpec`: how late a region
/// entry is reported, how long after the last packet an exit comes, when the screen wakes.
public struct IOSTiming: Sendable {
    public let spec: IOSSpec

    public init(spec: IOSSpec) { self.spec = spec }

    /// Seconds from the first packet to `didEnterRegion`: log-normal around the median (σ = 0.5,
    /// so most within 2–10 s), and with `entryLatencyTailProbability` uniform up to the tail's
    /// maximum (a locked phone, a busy radio).
    public func entryLatency(_ random: inout SplitMix64) -> Double {
        if Double.random(in: 0..<1, using: &random) < spec.entryLatencyTailProbability {
            return Double.random(in: spec.entryLatencyMedianSeconds...max(spec.entryLatencyMedianSeconds, spec.entryLatencyTailMaxSeconds), using: &random)
        }
        return spec.entryLatencyMedianSeconds * exp(0.5 * RadioLink.gaussian(&random))
    }

    /// Seconds from the last packet to `didExitRegion`: about `exitDelaySeconds` (± 10 s), and
    /// with `exitDelayTailProbability` minutes more.
    public func exitDelay(_ random: inout SplitMix64) -> Double {
        if Double.random(in: 0..<1, using: &random) < spec.exitDelayTailProbability {
            return Double.random(in: spec.exitDelaySeconds...max(spec.exitDelaySeconds, spec.exitDelayTailMaxSeconds), using: &random)
        }
        return max(1, spec.exitDelaySeconds + Double.random(in: -10...10, using: &random))
    }

    /// The moments the screen wakes during `[start, end)`: a Poisson process at
    /// `screenWakesPerDay`, each giving a region state callback (`notifyEntryStateOnDisplay`).
    public func screenWakes(from start: Double, to end: Double, _ random: inout SplitMix64) -> [Double] {
        guard spec.screenWakesPerDay > 0 else { return [] }
        let rate = spec.screenWakesPerDay / 86_400
        var times: [Double] = []
        var time = start
        while true {
            time += -log(Double.random(in: Double.ulpOfOne..<1, using: &random)) / rate
            guard time < end else { return times }
            times.append(time)
        }
    }
}

/// What the operating system reports for one beacon region, from whether any of its beacons
/// was heard each second: an entry some latency after the first packet while outside, an exit
/// some delay after the last packet while inside. iOS, not the app, owns this state: it survives
/// app termination and is reported again on relaunch.
public struct RegionMonitorModel: Sendable {
    public enum Callback: Hashable, Sendable {
        case entered(at: Double)
        case exited(at: Double)
    }

    public private(set) var inside = false
    /// A first packet has been heard; the entry will be reported once its latency has passed.
    public var entryPending: Bool { pendingEntry != nil }
    private var lastHeard: Double?
    private var pendingEntry: Double?
    private var exitAfter: Double = 30
    private let timing: IOSTiming
    private var random: SplitMix64

    public init(timing: IOSTiming, seed: UInt64) {
        self.timing = timing
        random = SplitMix64(seed: seed)
    }

    /// The second `time` passed; `heard`: some packet of the region arrived in it.
    public mutating func observe(at time: Double, heard: Bool) -> [Callback] {
        var callbacks: [Callback] = []
        if heard { lastHeard = time }
        if !inside {
            if heard, pendingEntry == nil { pendingEntry = time + timing.entryLatency(&random) }
            if let entry = pendingEntry, time >= entry {
                inside = true
                pendingEntry = nil
                exitAfter = timing.exitDelay(&random)
                callbacks.append(.entered(at: time))
            }
        } else if let last = lastHeard, time - last >= exitAfter {
            inside = false
            pendingEntry = nil
            callbacks.append(.exited(at: time))
        }
        return callbacks
    }
}
