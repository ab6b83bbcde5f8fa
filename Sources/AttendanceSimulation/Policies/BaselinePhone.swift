import AttendanceModels
import AttendanceSync
import Foundation

/// A baseline (docs/ARCHITECTURE.md, "How it is evaluated") on one simulated phone, in the same plan as ours. Neither has an
/// outbox: each decision is posted once, at once, through the same simulated network to the real
/// server; a failed post is lost (the naive code does not retry).
///
/// - `naive` runs on iOS: iOS's region callbacks and screen-wake state callbacks from the plan,
///   terminations, crashes and reboots forget its in-memory state, a force-quit silences it until
///   the employee opens the app.
/// - `altbeacon` runs on Android: its own scanner (10 s every 5 min) on a radio stream of its
///   own; Android's services restart themselves, so iOS's lifecycle faults do not apply.
/// - `hindsight` is offline: after the run it reads what the phone would have heard ranging every
///   second on the app's radio stream, and the person's motion, all at once (`HindsightRecording`),
///   decodes the sessions (`HindsightEstimator`) and posts them over a network that never fails
///   (it bounds detection, not delivery). The app's lifecycle does not touch it; employees without
///   Always access check in by hand as for every policy (no app can range for them).
final class BaselinePhone {
    enum Kind: String { case naive, altbeacon, hindsight }

    private let kind: Kind
    private let plan: PhonePlan
    private let world: WorldSpec
    private let epoch: Date
    private let account: PhoneAccount
    private let clock: SimulatedClock
    private let network: SimulatedNetwork
    private var radio: PhoneRadio
    private var openSessions: [Int: SessionKey] = [:]
    private var outcome = PhoneOutcome()
    private var nextID: Int64 = 1
    private var awake = AwakeMeter()
    private let hindsight: HindsightEstimator?

    init(
        kind: Kind, plan: PhonePlan, world: WorldSpec, environment: RadioEnvironment, account: PhoneAccount,
        link: any ServerLink,
        siteIDs: [SiteBeacon: SiteID], serverRestarts: [Range<Double>], epoch: Date, seed: UInt64,
        hindsight: HindsightEstimator? = nil
    ) {
        self.kind = kind
        self.plan = plan
        self.world = world
        self.epoch = epoch
        self.account = account
        clock = SimulatedClock(epoch)
        network = SimulatedNetwork(
            link: link, account: account, siteIDs: siteIDs, platform: kind == .altbeacon ? "android" : "ios",
            appVersion: kind.rawValue, clock: clock, epoch: epoch, plan: plan, serverRestarts: serverRestarts,
            network: world.network, seed: seed ^ 0x4E37)
        radio = environment.radio(phone: plan.index, stream: .scanner)
        self.hindsight = hindsight
        // Offline and ideal: what it posts after the run always arrives.
        if kind == .hindsight { network.settle() }
    }

    func run() async -> PhoneOutcome {
        if plan.access != .always { await manualAttendance() }
        switch kind {
        case .naive: await runNaive()
        case .altbeacon: await runAltBeacon()
        case .hindsight: await runHindsight()
        }
        outcome.usage.awakeSeconds = awake.seconds(until: plan.length)
        outcome.usage.requests = network.counters.requests
        outcome.usage.bytes = network.bytesSoFar
        network.book(into: &outcome)
        return outcome
    }

    // MARK: - naive

    private enum Happening {
        case region(RegionCallback)
        case screenWake, manualOpen, forget, forceQuit, reboot
    }

    private func runNaive() async {
        var happenings: [(Double, Int, Happening)] = []
        for callback in plan.regionCallbacks { happenings.append((callback.time, 0, .region(callback))) }
        for time in plan.screenWakes where plan.access == .always { happenings.append((time, 1, .screenWake)) }
        for time in plan.manualOpens where plan.access == .always { happenings.append((time, 2, .manualOpen)) }
        for time in plan.terminations + plan.crashes.map(\.time) { happenings.append((time, 3, .forget)) }
        for time in plan.forceQuits { happenings.append((time, 4, .forceQuit)) }
        for time in plan.reboots { happenings.append((time, 5, .reboot)) }
        happenings.sort { ($0.0, $0.1) < ($1.0, $1.1) }

        var policy = NaivePolicy()
        var running = false
        var forceQuit = false
        var offUntil = -Double.infinity
        // Every callback iOS delivers wakes (or relaunches) the app; a relaunch forgets its memory.
        // It then runs for the background time of an event.
        var currentTime = 0.0
        func launch() {
            if !running { policy.relaunched() }
            outcome.wakeups += 1
            outcome.usage.wakeups += 1
            awake.awake(from: currentTime, until: currentTime + world.iOS.backgroundSecondsPerEvent)
            running = true
        }
        // The sites' regions are monitored while the app is not force-quit and the phone is on.
        var monitoredSince: Double? = 0
        func monitoring(_ on: Bool, at time: Double) {
            if on, monitoredSince == nil { monitoredSince = time }
            if !on, let since = monitoredSince {
                outcome.usage.monitoredRegionSeconds += Double(world.sites.count) * max(0, time - since)
                monitoredSince = nil
            }
        }
        defer { monitoring(false, at: plan.length) }
        for (time, _, happening) in happenings where time < plan.length {
            currentTime = time
            monitoring(!forceQuit && time >= offUntil, at: time)
            switch happening {
            case .region(let callback):
                guard !forceQuit, time >= offUntil else { continue }
                launch()
                let decisions =
                    callback.entered
                    ? policy.entered(site: callback.siteIndex, at: time)
                    : policy.exited(site: callback.siteIndex, at: time)
                for decision in decisions { await post(decision) }
            case .screenWake, .manualOpen:
                guard time >= offUntil else { continue }
                if case .manualOpen = happening { forceQuit = false }
                guard !forceQuit else { continue }
                launch()
                for siteIndex in world.sites.indices {
                    let decisions =
                        plan.regionState(site: siteIndex, at: time)
                        ? policy.entered(site: siteIndex, at: time) : policy.exited(site: siteIndex, at: time)
                    for decision in decisions { await post(decision) }
                }
            case .forget:
                running = false
            case .forceQuit:
                running = false
                forceQuit = true
            case .reboot:
                running = false
                forceQuit = false
                offUntil = time + PhonePlan.rebootSeconds
            }
        }
    }

    // MARK: - altbeacon

    private func runAltBeacon() async {
        guard plan.access == .always else { return }
        var policy = AltBeaconPolicy()
        let cycle = AltBeaconPolicy.scanSeconds + AltBeaconPolicy.betweenScansSeconds
        var start = 0.0
        while start < plan.length {
            outcome.wakeups += 1
            outcome.usage.wakeups += 1
            // Android wakes the app and scans for 10 s, near a beacon or not.
            awake.awake(from: start, until: min(plan.length, start + AltBeaconPolicy.scanSeconds))
            outcome.usage.scanSeconds += max(0, min(AltBeaconPolicy.scanSeconds, plan.length - start))
            for second in 0..<Int(AltBeaconPolicy.scanSeconds) {
                let time = start + Double(second)
                let (position, shielded) = plan.timeline.position(at: time)
                var heard: Set<Int> = []
                let near = radio.environment.beacons.contains {
                    $0.position.distance(to: position) <= RadioEnvironment.hearingLimitMeters
                }
                if near {
                    outcome.rangingSeconds += 1
                    for sample in radio.scan(at: time, position: position, lossDB: shielded + plan.bodyLossDB(at: time))
                    where sample.rssi != 0 {
                        heard.insert(sample.siteIndex)
                    }
                }
                for decision in policy.scanned(at: time, heard: heard) { await post(decision) }
            }
            for decision in policy.tick(at: start + AltBeaconPolicy.scanSeconds) { await post(decision) }
            start += cycle
        }
    }

    // MARK: - hindsight

    private func runHindsight() async {
        guard plan.access == .always, let hindsight else { return }
        let recording = HindsightRecording(plan: plan, environment: radio.environment)
        for decision in hindsight.decisions(recording, decidedAt: plan.length) { await post(decision) }
    }

    // MARK: - Posting

    private func post(_ decision: PolicyDecision) async {
        let site = Simulation.siteBeacon(world.sites[decision.siteIndex])
        let at = epoch.addingTimeInterval(decision.ts)
        let event: AttendanceEvent
        switch decision.kind {
        case .checkIn:
            let key = SessionKey.derive(user: account.userID, device: account.deviceID, site: site, checkIn: at)
            openSessions[decision.siteIndex] = key
            event = AttendanceEvent(
                kind: .checkIn, userID: account.userID, deviceID: account.deviceID, site: site, sessionKey: key,
                timestamp: at,
                source: .automatic,
                evidence: CheckInEvidence(
                    sampleCount: 0, medianRSSI: nil, stdevDB: nil, walking: false, rule: kind.rawValue))
        case .checkOut:
            guard let key = openSessions.removeValue(forKey: decision.siteIndex) else { return }
            event = AttendanceEvent(
                kind: .checkOut, userID: account.userID, deviceID: account.deviceID, site: site, sessionKey: key,
                timestamp: at,
                source: .automatic, reason: "regionExit")
        }
        await send(event, decidedAt: decision.decidedAt)
    }

    private func send(_ event: AttendanceEvent, decidedAt: Double) async {
        clock.set(epoch.addingTimeInterval(decidedAt))
        let entry = OutboxEntry(id: nextID, event: event, enqueuedAt: epoch.addingTimeInterval(decidedAt))
        nextID += 1
        outcome.recorded[entry.idempotencyKey] = decidedAt
        if event.kind == .checkIn { outcome.checkInDecidedAt[event.sessionKey] = decidedAt }
        _ = await network.upload([entry])
    }

    /// The same employees as ours check in and out by hand when their phone cannot detect them.
    private func manualAttendance() async {
        let reason = DefaultPolicyPhone.manualReason(plan.access)
        for manual in plan.manualAttendance(world: world) {
            let site = Simulation.siteBeacon(world.sites[manual.siteIndex])
            let at = epoch.addingTimeInterval(manual.checkIn)
            let key = SessionKey.derive(user: account.userID, device: account.deviceID, site: site, checkIn: at)
            await send(
                AttendanceEvent(
                    kind: .checkIn, userID: account.userID, deviceID: account.deviceID, site: site, sessionKey: key,
                    timestamp: at,
                    source: .manual, reason: reason), decidedAt: manual.checkIn)
            await send(
                AttendanceEvent(
                    kind: .checkOut, userID: account.userID, deviceID: account.deviceID, site: site, sessionKey: key,
                    timestamp: epoch.addingTimeInterval(manual.checkOut), source: .manual, reason: reason),
                decidedAt: manual.checkOut)
        }
    }
}
