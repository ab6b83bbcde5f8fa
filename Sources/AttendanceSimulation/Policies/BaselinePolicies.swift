import Foundation

/// An event a policy's app would record: what, where, its timestamp, and when it was decided.
public struct PolicyDecision: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case checkIn, checkOut }
    public var kind: Kind
    public var siteIndex: Int
    public var ts: Double
    public var decidedAt: Double
}

/// `naive`: the straightforward region-callback app, as first written. It checks in when iOS says
/// the region was entered (timestamp = that moment), out when iOS says it was exited, and keeps
/// who is inside in memory only, so a relaunch forgets it: an entry state reported again after a
/// relaunch checks in a second time, and an exit after a relaunch is ignored.
public struct NaivePolicy: Sendable {
    private var inside: Set<Int> = []

    public init() {}

    /// `didEnterRegion`, or `didDetermineState(.inside)` (the guide treats both alike).
    public mutating func entered(site: Int, at time: Double) -> [PolicyDecision] {
        guard inside.insert(site).inserted else { return [] }
        return [PolicyDecision(kind: .checkIn, siteIndex: site, ts: time, decidedAt: time)]
    }

    /// `didExitRegion`, or `didDetermineState(.outside)`.
    public mutating func exited(site: Int, at time: Double) -> [PolicyDecision] {
        guard inside.remove(site) != nil else { return [] }
        return [PolicyDecision(kind: .checkOut, siteIndex: site, ts: time, decidedAt: time)]
    }

    /// Terminated and launched again (or crashed, or rebooted): the memory is gone.
    public mutating func relaunched() { inside = [] }
}

/// `altbeacon`: an Android app on AltBeacon's defaults. In the background it scans
/// 10 s every 5 min; a region is entered when a scan hears it (timestamp = that second) and
/// exited at the end of a scan cycle that did not hear it (its exit period, 10 s, is shorter than
/// a cycle). Its 20 s running-average RSSI only feeds distance, not presence, so it is not modelled.
public struct AltBeaconPolicy: Sendable {
    public static let scanSeconds = 10.0
    public static let betweenScansSeconds = 300.0
    private var inside: Set<Int> = []
    private var heardThisCycle: Set<Int> = []
    private var cycle: Int?

    public init() {}

    /// Whether the scanner runs during the second starting at `time`.
    public static func isScanning(at time: Double) -> Bool {
        time.truncatingRemainder(dividingBy: scanSeconds + betweenScansSeconds) < scanSeconds
    }

    static func cycleIndex(_ time: Double) -> Int { Int((time / (scanSeconds + betweenScansSeconds)).rounded(.down)) }

    /// One scanned second: the sites (regions) any packet was heard from. Seconds outside the
    /// scan windows are ignored, as the scanner is off then.
    public mutating func scanned(at time: Double, heard sites: Set<Int>) -> [PolicyDecision] {
        guard Self.isScanning(at: time) else { return [] }
        var decisions = closeCycle(ifBefore: Self.cycleIndex(time))
        cycle = Self.cycleIndex(time)
        heardThisCycle.formUnion(sites)
        for site in sites.sorted() where inside.insert(site).inserted {
            decisions.append(PolicyDecision(kind: .checkIn, siteIndex: site, ts: time, decidedAt: time))
        }
        return decisions
    }

    /// Ends the scan cycle in progress if `time` is past it (the caller's clock moved on).
    public mutating func tick(at time: Double) -> [PolicyDecision] {
        guard let current = cycle else { return [] }
        let end = Double(current) * (Self.scanSeconds + Self.betweenScansSeconds) + Self.scanSeconds
        return time >= end ? closeCycle(ifBefore: Int.max) : []
    }

    private mutating func closeCycle(ifBefore next: Int) -> [PolicyDecision] {
        guard let current = cycle, current < next else { return [] }
        let end = Double(current) * (Self.scanSeconds + Self.betweenScansSeconds) + Self.scanSeconds
        let silent = inside.subtracting(heardThisCycle).sorted()
        inside.subtract(silent)
        heardThisCycle = []
        cycle = nil
        return silent.map { PolicyDecision(kind: .checkOut, siteIndex: $0, ts: end, decidedAt: end) }
    }
}
