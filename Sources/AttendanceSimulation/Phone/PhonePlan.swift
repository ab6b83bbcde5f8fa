import AttendanceModels
import Foundation

/// What iOS's region monitoring reported for one site: an entry or an exit callback.
public struct RegionCallback: Hashable, Sendable {
    public var time: Double
    public var siteIndex: Int
    public var entered: Bool
}

/// A crash of the app at an instant: between two events, in the middle of a database write (the
/// transaction is rolled back), or while an upload is on the wire (the server may have processed
/// it; the phone never hears back).
public struct PlannedCrash: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable { case idle, midWrite, midUpload }
    public var time: Double
    public var mode: Mode
}

/// The faults the simulation injects and the run's options that shape them.
public struct FaultOptions: Hashable, Sendable {
    /// Per device-day, the probability of a crash at a random instant (`--crash-rate`).
    public var crashRate: Double = 0
    /// Every device gets one network outage of this many hours (`--offline-hours`); 0: none.
    public var offlineHours: Double = 0

    public init(crashRate: Double = 0, offlineHours: Double = 0) {
        self.crashRate = crashRate
        self.offlineHours = offlineHours
    }
}

/// Everything about one phone's run that does not depend on the policy, drawn from the seed: the
/// person's path and truth, what iOS's region monitoring reports (from the operating system's own
/// radio stream), screen wakes, the employee opening the app, the app being terminated,
/// force-quit or crashing, reboots, permissions and the network's outages. Every policy runs
/// against the same plan.
public struct PhonePlan: Sendable {
    public enum LocationAccess: String, Hashable, Sendable { case always, whenInUse, denied }

    public var index: Int
    public var profile: EmployeeProfile
    public var timeline: Timeline
    /// Seconds simulated (the days, and the night shift of the last one).
    public var length: Double
    public var access: LocationAccess
    public var regionCallbacks: [RegionCallback]
    public var screenWakes: [Double]
    /// The employee opens the app (foreground): also the only way back after a force-quit.
    public var manualOpens: [Double]
    /// iOS's opportunistic background refresh (a few times a day at best).
    public var backgroundRefreshes: [Double]
    public var terminations: [Double]
    public var forceQuits: [Double]
    public var reboots: [Double]
    public var crashes: [PlannedCrash]
    /// When the phone has no network (sorted, disjoint).
    public var outages: [Range<Double>]
    private let bodyLossSeed: UInt64
    private let pocketFraction: Double
    private let bodyLoss: ClosedRange<Double>

    /// How long a reboot keeps the phone off.
    public static let rebootSeconds = 90.0
    /// Body loss is redrawn every half hour (in a pocket or not, how much).
    public static let bodyLossSlotSeconds = 1_800.0

    public init(index: Int, profile: EmployeeProfile, timeline: Timeline, days: Int, world: WorldSpec, environment: RadioEnvironment,
                faults: FaultOptions, seed: UInt64) {
        self.index = index
        self.profile = profile
        self.timeline = timeline
        let runLength = Double(days) * 86_400 + 12 * 3_600
        length = runLength
        var random = SplitMix64(seed: seed ^ 0xFA17_0000 ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        let draw = Double.random(in: 0..<1, using: &random)
        access = draw < world.iOS.deniedFraction ? .denied : draw < world.iOS.deniedFraction + world.iOS.whenInUseOnlyFraction ? .whenInUse : .always
        bodyLossSeed = random.next()
        pocketFraction = world.people.pocketFraction
        bodyLoss = world.sites[profile.siteIndex].radio.bodyLossRangeDB
        let timing = IOSTiming(spec: world.iOS)
        screenWakes = timing.screenWakes(from: 0, to: runLength, &random)
        func poisson(perDay rate: Double, hours: ClosedRange<Double> = 0...24) -> [Double] {
            var times: [Double] = []
            for day in 0..<(days + 1) {
                for _ in 0..<DayPlanner.poisson(mean: rate, random: &random) {
                    let time = Double(day) * 86_400 + Double.random(in: hours, using: &random) * 3_600
                    if time < runLength { times.append(time) }
                }
            }
            return times.sorted()
        }
        func daily(probability: Double) -> [Double] {
            (0..<days).compactMap { day in
                Double.random(in: 0..<1, using: &random) < probability ? Double(day) * 86_400 + Double.random(in: 0..<86_400, using: &random) : nil
            }
        }
        manualOpens = poisson(perDay: world.iOS.manualOpensPerDay, hours: 7...22)
        backgroundRefreshes = poisson(perDay: 4)
        terminations = poisson(perDay: world.iOS.terminationsPerDay)
        forceQuits = daily(probability: world.iOS.forceQuitProbabilityPerDay)
        reboots = daily(probability: world.iOS.rebootProbabilityPerDay)
        crashes = daily(probability: faults.crashRate).map { PlannedCrash(time: $0, mode: PlannedCrash.Mode.allCases.randomElement(using: &random)!) }
        var down: [Range<Double>] = []
        for start in daily(probability: world.network.outageProbabilityPerDay) {
            down.append(start..<(start + Double.random(in: 0...world.network.outageHoursMax, using: &random) * 3_600))
        }
        if faults.offlineHours > 0 {
            let duration = faults.offlineHours * 3_600
            let start = Double.random(in: 0...max(0, Double(days) * 86_400 - duration), using: &random)
            down.append(start..<(start + duration))
        }
        outages = Self.merged(down)
        let (lossSeed, pocket, lossRange) = (bodyLossSeed, pocketFraction, bodyLoss)
        regionCallbacks = access == .always
            ? Self.regionCallbacks(timeline: timeline, length: runLength, world: world, environment: environment, phone: index, seed: random.next(),
                                   bodyLoss: { Self.bodyLoss(at: $0, seed: lossSeed, pocketFraction: pocket, range: lossRange) })
            : []
    }

    /// The planned incidents, in time order (the details file's `incidents`).
    public var incidents: [SimulationDetails.Incident] {
        var all = forceQuits.map { SimulationDetails.Incident(kind: "forceQuit", start: $0) }
            + reboots.map { SimulationDetails.Incident(kind: "reboot", start: $0) }
            + crashes.map { SimulationDetails.Incident(kind: "crash." + $0.mode.rawValue, start: $0.time) }
            + outages.map { SimulationDetails.Incident(kind: "outage", start: $0.lowerBound, end: $0.upperBound) }
        all.sort { ($0.start, $0.kind) < ($1.start, $1.kind) }
        return all
    }

    /// The body or pocket loss at `time` (dB): redrawn every half hour, in a pocket with the
    /// world's `pocketFraction`.
    public func bodyLossDB(at time: Double) -> Double {
        Self.bodyLoss(at: time, seed: bodyLossSeed, pocketFraction: pocketFraction, range: bodyLoss)
    }

    static func bodyLoss(at time: Double, seed: UInt64, pocketFraction: Double, range: ClosedRange<Double>) -> Double {
        var random = SplitMix64(seed: seed ^ (UInt64(max(0, time / bodyLossSlotSeconds)) &* 0xD6E8_FEB8_6659_FD93))
        guard Double.random(in: 0..<1, using: &random) < pocketFraction else { return 0 }
        return Double.random(in: range, using: &random)
    }

    /// An employee whose phone cannot detect them checks in and out by hand (the app prompts
    /// them): 1–15 min after arriving, and from a minute before leaving to 10 min after
    /// (`leftFirst`: they tap after leaving). The same for every policy.
    public func manualAttendance(world: WorldSpec) -> [(siteIndex: Int, checkIn: Double, checkOut: Double, leftFirst: Bool)] {
        guard access != .always else { return [] }
        var random = SplitMix64(seed: UInt64(index) &* 0x2545_F491_4F6C_DD1D ^ 0x3A11)
        return timeline.presences.compactMap { presence in
            guard let siteIndex = world.sites.firstIndex(where: { $0.id == presence.site.rawValue }) else { return nil }
            let checkIn = presence.start + Double.random(in: 60...900, using: &random)
            let checkOut = max(checkIn + 60, presence.end + Double.random(in: -60...600, using: &random))
            return checkIn < presence.end ? (siteIndex, checkIn, checkOut, checkOut > presence.end) : nil
        }
    }

    /// Whether the phone has a network at `time`.
    public func isOnline(at time: Double) -> Bool { !outages.contains { $0.contains(time) } }

    /// Whether iOS believes the phone is inside site `siteIndex`'s region at `time`.
    public func regionState(site siteIndex: Int, at time: Double) -> Bool {
        regionCallbacks.last { $0.siteIndex == siteIndex && $0.time <= time }?.entered ?? false
    }

    static func merged(_ ranges: [Range<Double>]) -> [Range<Double>] {
        var result: [Range<Double>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    // MARK: - iOS region monitoring

    /// Far from every beacon of a site (no packet can arrive): the monitor is only ticked.
    static let farMeters = 2 * RadioEnvironment.hearingLimitMeters

    /// Runs iOS's region monitor for every site near the path: 1 s steps while moving, 10 s spans
    /// ("was anything heard in them") while still, none while far away.
    static func regionCallbacks(timeline: Timeline, length: Double, world: WorldSpec, environment: RadioEnvironment, phone: Int, seed: UInt64,
                                bodyLoss: (Double) -> Double) -> [RegionCallback] {
        var radio = environment.radio(phone: phone, stream: .operatingSystem)
        let timing = IOSTiming(spec: world.iOS)
        var callbacks: [RegionCallback] = []
        for siteIndex in world.sites.indices {
            let near = timeline.waypoints.contains { radio.nearestBeaconMeters(site: siteIndex, from: $0.position) <= RadioEnvironment.hearingLimitMeters }
            guard near else { continue }
            var monitor = RegionMonitorModel(timing: timing, seed: seed ^ UInt64(siteIndex + 1) &* 0xA24B_AED4_963E_E407)
            var time = 0.0
            while time < length {
                let (position, shielded) = timeline.position(at: time)
                let next = min(length, timeline.nextWaypointTime(after: time) ?? length)
                let distance = radio.nearestBeaconMeters(site: siteIndex, from: position)
                if distance > farMeters, radio.nearestBeaconMeters(site: siteIndex, from: timeline.position(at: next).0) > farMeters {
                    // Nothing can be heard until the next waypoint: tick the monitor only while it
                    // has something to report (an exit, an entry already under way).
                    var tick = time + 5
                    while tick < next, monitor.inside || monitor.entryPending {
                        callbacks += monitor.observe(at: tick, heard: false).map { RegionCallback($0, site: siteIndex) }
                        tick += 5
                    }
                    time = max(next, time + 1)
                    continue
                }
                let moving = timeline.position(at: time + 1).0 != position
                let step = moving ? 1 : min(10, max(1, next - time))
                let heard = shielded >= DayPlanner.outOfCoverageDB ? false
                    : radio.heard(site: siteIndex, at: time + step, seconds: step, position: position, lossDB: shielded + bodyLoss(time))
                callbacks += monitor.observe(at: time + step, heard: heard).map { RegionCallback($0, site: siteIndex) }
                time += step
            }
        }
        return callbacks.sorted { ($0.time, $0.siteIndex) < ($1.time, $1.siteIndex) }
    }
}

extension RegionCallback {
    init(_ callback: RegionMonitorModel.Callback, site: Int) {
        switch callback {
        case .entered(let time): self.init(time: time, siteIndex: site, entered: true)
        case .exited(let time): self.init(time: time, siteIndex: site, entered: false)
        }
    }
}
