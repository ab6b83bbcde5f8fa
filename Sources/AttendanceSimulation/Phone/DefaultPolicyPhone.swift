import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// A phone's account on the server: who it is and how it authenticates.
public struct PhoneAccount: Hashable, Sendable {
    public var userID: UserID
    public var deviceID: DeviceID
    public var token: String
}

/// What one phone's run left behind, whatever the policy.
public struct PhoneOutcome: Sendable {
    /// Every event committed on the phone: idempotency key → commit time (seconds of the run).
    public var recorded: [String: Double] = [:]
    /// Check-ins: session key → when the check-in became durable on the phone.
    public var checkInDecidedAt: [SessionKey: Double] = [:]
    /// Check-ins: session key → the rule that decided it (our policy only).
    public var checkInRule: [SessionKey: String] = [:]
    /// Idempotency key → when the server first accepted it.
    public var accepted: [String: Double] = [:]
    public var rangingSeconds = 0
    public var wakeups = 0
    public var bytes = 0
    public var faults = FaultCounts()
    /// What cost energy over the simulated days (the settling after them not included).
    public var usage = DeviceUsage()
    /// Decisions still under way, and work still running, when the background time ran out.
    public var cutBySuspension = 0
}

/// How often each fault actually struck (the report's `faults`).
public struct FaultCounts: Hashable, Sendable, Codable {
    public var crashes = 0
    public var crashesMidWrite = 0
    public var crashesMidUpload = 0
    public var terminations = 0
    public var forceQuits = 0
    public var reboots = 0
    public var eventsMissedWhileForceQuit = 0
    public var networkOutages = 0
    public var uploadsWhileOffline = 0
    public var uploadsDuringServerRestart = 0
    public var requestsFailed = 0
    public var answersLost = 0
    public var deniedOrWhenInUse = 0
    /// The app's resume reminder was shown (it had not run for its hours), and tapped.
    public var remindersShown = 0
    public var remindersTapped = 0
    /// iOS showed the arrival reminder on entering the UUID's region (app running or not); the
    /// running app withdrew it before it was seen; it was seen (at a screen wake), and tapped.
    public var arrivalRemindersDelivered = 0
    public var arrivalRemindersWithdrawn = 0
    public var arrivalRemindersSeen = 0
    public var arrivalRemindersTapped = 0
    /// Failures the app reported with no caller to throw to (a permission report while offline).
    public var appErrors = 0

    public init() {}

    /// Every counter, for adding phones' counts up.
    private static var counters: [WritableKeyPath<FaultCounts, Int>] {
        [
            \.crashes, \.crashesMidWrite, \.crashesMidUpload, \.terminations, \.forceQuits, \.reboots,
            \.eventsMissedWhileForceQuit,
            \.networkOutages, \.uploadsWhileOffline, \.uploadsDuringServerRestart, \.requestsFailed, \.answersLost,
            \.deniedOrWhenInUse,
            \.remindersShown, \.remindersTapped, \.arrivalRemindersDelivered, \.arrivalRemindersWithdrawn,
            \.arrivalRemindersSeen,
            \.arrivalRemindersTapped, \.appErrors,
        ]
    }

    public static func + (a: FaultCounts, b: FaultCounts) -> FaultCounts {
        var sum = a
        for counter in counters { sum[keyPath: counter] += b[keyPath: counter] }
        return sum
    }
}

/// Our policy on one simulated iPhone: the app's composition root, `AttendanceDevice` (its
/// lifecycle and inbox, the engine, the SQLite outbox, the drainer, the HTTP client generated
/// from openapi.yaml), one per process, driven by what iOS would do in the plan's world. iOS
/// delivers region callbacks and screen-wake state callbacks, relaunching a terminated app (not a
/// force-quit one); the app then runs for ~10 s (30 s with a background
/// task), ranges at 1 Hz from its own radio stream while it runs, and is suspended; its timers
/// fire only while it runs (overdue ones on the next wake).
final class DefaultPolicyPhone {
    private enum Happening {
        case region(RegionCallback)
        case screenWake, manualOpen, backgroundRefresh, termination, forceQuit, reboot
        case crash(PlannedCrash)
        case timer(String, Date)
        case rangingTick, backgroundExpiry
        case manualCheckIn(Int)
        case manualCheckOut(Int, leftFirst: Bool)
        case regionState(BeaconRegion)
        case reminderDue(sequence: Int, Date)
    }

    private let plan: PhonePlan
    private let world: WorldSpec
    private let epoch: Date
    private let clock: SimulatedClock
    private let ports: SimulatedPorts
    private let network: SimulatedNetwork
    private let store: DeviceStore
    /// Set by a crash in mid-write: the store's next commit fails after its writes.
    private let midWriteCrash: MidWriteCrash
    private let configuration: Configuration
    private let jitterSeed: UInt64
    private var radio: PhoneRadio
    /// The app's process: `nil` while it is not running.
    private var device: AttendanceDevice?
    /// Where the app keeps its enrollment (its database is `store`, in memory).
    private let directory: URL
    private let account: PhoneAccount
    private let link: any ServerLink
    private var enrolled = false
    /// The phone's Keychain: it outlives the app's processes.
    private let keychain = InMemorySecretStore()
    /// Failures the app reported with no caller to throw to (a permission report while offline).
    private let reportedErrors = Locked(0)
    private var queue = EventQueue<Happening>()
    private var runningUntil = -Double.infinity
    private var expiryScheduledFor: Double?
    private var tickScheduled = false
    private var forceQuit = false
    /// Background location updates keep the app running (until the engine stops them or the
    /// process dies).
    private var keptRunning = false
    private var offUntil = -Double.infinity
    private var onlineWhenLastRan = true
    private var outcome = PhoneOutcome()
    /// Whether the app's resume reminder is showing, unseen, in Notification Centre.
    private var reminderShowing = false
    /// Whether the arrival reminder is showing, unseen; which sites' regions iOS has the phone in.
    private var arrivalReminderShowing = false
    private var insideSites: Set<Int> = []
    private var reminderTaps: SplitMix64
    /// Execution time granted (for the energy model), when background location was turned on,
    /// and when the monitored regions were last counted.
    private var awake = AwakeMeter()
    private var backgroundLocationSince: Double?
    private var monitoringCountedUntil = 0.0

    static let foregroundSeconds = 60.0
    /// Where to write this phone's full log (`--phone-log`), if anywhere.
    private let logPath: String?

    init(
        plan: PhonePlan, world: WorldSpec, environment: RadioEnvironment, account: PhoneAccount, link: any ServerLink,
        siteIDs: [SiteBeacon: SiteID],
        serverRestarts: [Range<Double>], epoch: Date, seed: UInt64, logPath: String? = nil,
        engine: Configuration = Configuration()
    ) throws {
        self.plan = plan
        self.world = world
        self.epoch = epoch
        clock = SimulatedClock(epoch)
        ports = SimulatedPorts(timeline: plan.timeline, epoch: epoch, clock: clock)
        network = SimulatedNetwork(
            link: link, account: account, siteIDs: siteIDs, platform: "ios", appVersion: "simulator", clock: clock,
            epoch: epoch, plan: plan, serverRestarts: serverRestarts, network: world.network, seed: seed ^ 0x4E37)
        self.logPath = logPath
        self.account = account
        self.link = link
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("attendance-simulation-\(UUID().uuidString)", isDirectory: true)
        // A phone whose log is wanted keeps all of it, not the app's rolling window.
        let limits = logPath == nil ? DeviceStore.Limits() : .init(telemetryRows: .max / 2, traceRows: .max / 2)
        let crash = MidWriteCrash()
        midWriteCrash = crash
        store = try DeviceStore.inMemory(limits: limits, beforeCommit: { try crash.strikeIfArmed() })
        var configuration = engine
        configuration.userID = account.userID
        configuration.deviceID = account.deviceID
        configuration.sites = world.sites.map { site in
            let beacon = Simulation.siteBeacon(site)
            return SiteConfiguration(siteID: siteIDs[beacon], name: site.id, uuid: beacon.uuid, major: site.major)
        }
        self.configuration = configuration
        jitterSeed = seed ^ 0x717E
        reminderTaps = SplitMix64(seed: seed ^ 0x7E41_4D3E)
        radio = environment.radio(phone: plan.index, stream: .app)
    }

    /// Runs the plan, then a settling phase (network back, app opened) that delivers what can be.
    func run() async throws -> PhoneOutcome {
        for callback in plan.regionCallbacks { queue.push(.region(callback), at: callback.time) }
        for time in plan.screenWakes { queue.push(.screenWake, at: time) }
        for time in plan.manualOpens { queue.push(.manualOpen, at: time) }
        for time in plan.backgroundRefreshes { queue.push(.backgroundRefresh, at: time) }
        for time in plan.terminations { queue.push(.termination, at: time) }
        for time in plan.forceQuits { queue.push(.forceQuit, at: time) }
        for time in plan.reboots { queue.push(.reboot, at: time) }
        for crash in plan.crashes { queue.push(.crash(crash), at: crash.time) }
        if plan.access != .always { outcome.faults.deniedOrWhenInUse = 1 }
        for manual in plan.manualAttendance(world: world) {
            queue.push(.manualCheckIn(manual.siteIndex), at: manual.checkIn)
            queue.push(.manualCheckOut(manual.siteIndex, leftFirst: manual.leftFirst), at: manual.checkOut)
        }
        // Installed and opened once at the start.
        try await wake(at: 0, reason: .userOpened, budget: Self.foregroundSeconds)

        while let (time, happening) = queue.pop() {
            guard time < plan.length else { break }
            try await handle(happening, at: time)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        closeUsage(at: plan.length)
        try await settle()
        network.book(into: &outcome)
        outcome.faults.appErrors = reportedErrors.value
        if let logPath { try writeLog(to: logPath) }
        for entry in try store.entries() {
            let committed = entry.enqueuedAt.timeIntervalSince(epoch)
            outcome.recorded[entry.idempotencyKey] = committed
            if entry.event.kind == .checkIn {
                outcome.checkInDecidedAt[entry.event.sessionKey] = committed
                outcome.checkInRule[entry.event.sessionKey] = entry.event.evidence?.rule
            }
        }
        return outcome
    }

    // MARK: - The event loop

    private func handle(_ happening: Happening, at time: Double) async throws {
        setClock(time)
        countMonitoring(until: time)
        switch happening {
        case .region(let callback):
            let region = regionOf(site: callback.siteIndex)
            arrivalReminderIfDue(callback, region: region, phoneOn: time >= offUntil)
            guard time >= offUntil else { return }
            guard !forceQuit else {
                outcome.faults.eventsMissedWhileForceQuit += 1
                return
            }
            guard ports.state.value.monitored.contains(region) else { return }
            try await wake(at: time, reason: .regionEvent, budget: world.iOS.backgroundSecondsPerEvent)
            try await send(callback.entered ? .regionEntered(region) : .regionExited(region), at: time)
        case .reminderDue(let sequence, let due):
            // Like a timer: a reminder rescheduled since is not this one.
            guard ports.state.value.reminderAt[sequence] == due else { return }
            reminderShowing = true
            outcome.faults.remindersShown += 1
        case .screenWake:
            guard time >= offUntil else { return }
            if reminderShowing || arrivalReminderShowing {
                // Seen now; tapped, it opens the app like any manual open.
                let arrival = arrivalReminderShowing
                if arrival { outcome.faults.arrivalRemindersSeen += 1 }
                reminderShowing = false
                arrivalReminderShowing = false
                if Double.random(in: 0..<1, using: &reminderTaps) < world.iOS.reminderTapProbability {
                    if arrival {
                        outcome.faults.arrivalRemindersTapped += 1
                    } else {
                        outcome.faults.remindersTapped += 1
                    }
                    return try await handle(.manualOpen, at: time)
                }
            }
            guard plan.access == .always else { return }
            guard !forceQuit else {
                outcome.faults.eventsMissedWhileForceQuit += 1
                return
            }
            try await wake(at: time, reason: .regionEvent, budget: world.iOS.backgroundSecondsPerEvent)
            for region in ports.state.value.monitored.sorted() { try await deliverState(region, at: time) }
        case .regionState(let region):
            try await deliverState(region, at: time)
        case .manualOpen:
            guard time >= offUntil else { return }
            forceQuit = false
            try await wake(at: time, reason: .userOpened, budget: Self.foregroundSeconds)
            for region in ports.state.value.monitored.sorted() { try await deliverState(region, at: time) }
        case .backgroundRefresh:
            guard time >= offUntil, !forceQuit else { return }
            try await wake(at: time, reason: .backgroundRefresh, budget: world.iOS.backgroundTaskSeconds)
            try await call(.backgroundRefresh)
        case .termination:
            guard device != nil else { return }
            processEnded(at: time)
            outcome.faults.terminations += 1
        case .forceQuit:
            processEnded(at: time)
            forceQuit = true
            outcome.faults.forceQuits += 1
        case .reboot:
            processEnded(at: time)
            forceQuit = false
            offUntil = time + PhonePlan.rebootSeconds
            outcome.faults.reboots += 1
        case .crash(let crash):
            outcome.faults.crashes += 1
            guard device != nil else { return }
            switch crash.mode {
            case .idle: processEnded(at: time)
            case .midWrite:
                midWriteCrash.arm()
                outcome.faults.crashesMidWrite += 1
            case .midUpload:
                network.crashDuringNextUpload()
                outcome.faults.crashesMidUpload += 1
            }
        case .timer(let name, let due):
            guard isRunning(at: time), ports.state.value.timers[name] == due else { return }
            try await call(.timer(name))
        case .rangingTick:
            tickScheduled = false
            guard isRunning(at: time) else { return }
            let regions = ports.state.value.ranging.sorted()
            guard !regions.isEmpty else { return }
            let (position, shielded) = plan.timeline.position(at: time)
            let heard = radio.scan(at: time, position: position, lossDB: shielded + plan.bodyLossDB(at: time))
            outcome.rangingSeconds += 1
            outcome.usage.scanSeconds += 1
            for region in regions {
                let samples = heard.filter {
                    region.uuid == $0.beacon.uuid && (region.major == nil || region.major == $0.beacon.major)
                }
                .map { BeaconSample(beacon: $0.beacon, rssi: $0.rssi) }
                try await send(.beaconsRanged(samples, region: region), at: time)
            }
            scheduleTick(after: time)
        case .backgroundExpiry:
            expiryScheduledFor = nil
            guard device != nil, !keptRunning else { return }
            if time < runningUntil {
                scheduleExpiry()
                return
            }
            // iOS calls the expiration handler of a background task the app began; without one
            // the app is suspended without notice.
            if ports.state.value.taskActive { try await send(.backgroundTimeExpiring, at: time) }
            // What the engine still ranges for is a decision the suspension cuts short.
            if let runtime = await device?.runtime, await runtime.engine.isRanging, time < plan.length {
                outcome.cutBySuspension += 1
            }
        case .manualCheckIn(let siteIndex):
            // The sheet offers the end of the last walk as the arrival; the employee keeps it.
            guard time >= offUntil else { return }
            try await wake(at: time, reason: .userOpened, budget: Self.foregroundSeconds)
            let arrived = ports.motion(at: time, lookbackMinutes: manualLookbackMinutes).manualTimeOffer(
                checkIn: true, notBefore: nil)
            try await send(
                .manualCheckIn(
                    Simulation.siteBeacon(world.sites[siteIndex]), reason: Self.manualReason(plan.access), at: arrived),
                at: time)
        case .manualCheckOut(let siteIndex, let leftFirst):
            // The sheet offers the start of the last walk as the departure; the employee keeps
            // it only if they have already left.
            guard time >= offUntil else { return }
            try await wake(at: time, reason: .userOpened, budget: Self.foregroundSeconds)
            let site = Simulation.siteBeacon(world.sites[siteIndex])
            let checkedIn = await device?.runtime?.engine.openSessions.first { $0.site == site }?.checkInAt
            let departed =
                leftFirst
                ? ports.motion(at: time, lookbackMinutes: manualLookbackMinutes).manualTimeOffer(
                    checkIn: false, notBefore: checkedIn) : nil
            try await send(.manualCheckOut(site, reason: Self.manualReason(plan.access), at: departed), at: time)
        }
    }

    /// How far back the manual sheet asks motion history: as far as the engine accepts a date.
    private var manualLookbackMinutes: Double { configuration.manualBackdateMaxMinutes }

    static func manualReason(_ access: PhonePlan.LocationAccess) -> String {
        "automatic detection is off on this phone (location \(access == .denied ? "denied" : "While Using only"))"
    }

    /// iOS gives the app execution time: relaunching it if it is not running, telling it the
    /// network came back, firing its overdue timers.
    private func wake(at time: Double, reason: LaunchReason, budget: Double) async throws {
        let wasRunning = isRunning(at: time)
        if !wasRunning {
            outcome.wakeups += 1
            if time < plan.length { outcome.usage.wakeups += 1 }
        }
        grant(from: time, until: time + budget)
        if device == nil {
            // A new process: the app's composition root, as the iPhone app builds it.
            let device = AttendanceDevice(directory: directory, platform: platform())
            self.device = device
            if !enrolled {
                // Installed, enrolled (the code exchanged by the admin client) and opened.
                try await device.adopt(
                    EnrolledDevice(
                        serverURL: link.baseURL, deviceID: account.deviceID,
                        userID: account.userID, deviceToken: account.token,
                        configuration: configuration))
                enrolled = true
            }
            try await call(.launch(reason))
            try await send(.permissionsChanged(Permissions(location: Self.location(plan.access))), at: time)
        }
        let online = network.isOnline(at: time)
        if online && !onlineWhenLastRan { try await call(.networkReachable) }
        onlineWhenLastRan = online
        for (name, due) in ports.state.value.timers.sorted(by: { $0.key < $1.key })
        where due.timeIntervalSince(epoch) <= time {
            try await call(.timer(name))
        }
        scheduleTick(after: time)
    }

    /// What the simulated iPhone gives the app: its ports, its network, its in-memory database
    /// (which outlives the process, like the file on a phone) and the employer's configuration.
    private func platform() -> AttendanceDevice.Platform {
        let ports = ports
        let network = network
        let store = store
        let configuration = configuration
        let errors = reportedErrors
        var platform = AttendanceDevice.Platform(
            clock: clock, radio: ports, motion: ports, background: ports, notifier: ports,
            makeTimers: { _ in ports }, makeUploader: { _ in network }, secrets: keychain,
            appVersion: "simulator", deviceName: plan.profile.id.rawValue,
            reportError: { _, _ in errors.withLock { $0 += 1 } })
        platform.openStore = { _ in store }
        platform.transport = network.otherCalls(over: link)
        platform.traffic = network.traffic
        platform.fetchConfiguration = { _, _ in configuration }
        platform.jitterSeed = jitterSeed &+ UInt64(outcome.wakeups)
        return platform
    }

    static func location(_ access: PhonePlan.LocationAccess) -> Permissions.Location {
        switch access {
        case .always: .always
        case .whenInUse: .whenInUse
        case .denied: .denied
        }
    }

    /// iOS answers a state request or a screen wake for a monitored region; without Always
    /// access region monitoring does not run, and no state is delivered.
    private func deliverState(_ region: BeaconRegion, at time: Double) async throws {
        guard plan.access == .always, let major = region.major,
            let siteIndex = world.sites.firstIndex(where: { $0.major == major })
        else { return }
        let inside = plan.regionState(site: siteIndex, at: time)
        try await send(.regionStateDetermined(region, inside ? .inside : .outside), at: time)
    }

    private func send(_ event: EngineEvent, at time: Double) async throws {
        try await call(.engine(event))
    }

    /// One input into the app's inbox, handled now; a simulated crash ends the app; what the
    /// engine asked of iOS is then acted on.
    private func call(_ input: DeviceInput) async throws {
        guard let device else { return }
        let began = clock.now().timeIntervalSince(epoch)
        do {
            try await device.receive(input)
        } catch is SimulatedCrash {
            processEnded(at: clock.now().timeIntervalSince(epoch))
        }
        let now = clock.now().timeIntervalSince(epoch)
        if network.takeCrash() { processEnded(at: now) }
        // Work that began within the background time and was still running after it (an upload
        // waiting for its answer) was frozen by the suspension.
        if began <= runningUntil, now > runningUntil, !keptRunning, self.device != nil, began < plan.length {
            outcome.cutBySuspension += 1
        }
        let requests = ports.takeRequests()
        for (sequence, due) in requests.reminders {
            // Rescheduled while running: the one showing, if any, was removed.
            reminderShowing = false
            queue.push(.reminderDue(sequence: sequence, due), at: due.timeIntervalSince(epoch))
        }
        if requests.arrivalRearmed && arrivalReminderShowing {
            arrivalReminderShowing = false
            outcome.faults.arrivalRemindersWithdrawn += 1
        }
        if keptRunning && !ports.state.value.backgroundLocation {
            // Location updates stopped: iOS suspends the app a few seconds later.
            keptRunning = false
            locationStopped(at: now)
            grant(from: now, until: now + world.iOS.backgroundSecondsPerEvent)
        } else if ports.state.value.backgroundLocation, self.device != nil {
            if !keptRunning {
                // Running until the updates stop: the end is not known yet.
                backgroundLocationSince = now
                awake.awake(from: now, until: .infinity)
            }
            keptRunning = true
            publishRunningTime()
        }
        if requests.taskBegun { grant(from: now, until: now + world.iOS.backgroundTaskSeconds) }
        for (name, due) in requests.timers { queue.push(.timer(name, due), at: max(now, due.timeIntervalSince(epoch))) }
        for region in requests.states { queue.push(.regionState(region), at: now) }
        scheduleTick(after: now)
    }

    /// The app's process is gone (killed, crashed, force-quit, rebooted): iOS stops its ranging
    /// and location updates.
    private func processEnded(at time: Double) {
        device = nil
        if keptRunning { locationStopped(at: time) }
        keptRunning = false
        awake.ended(at: time)
        ports.state.withLock {
            $0.backgroundLocation = false
            $0.ranging = []
            $0.taskActive = false
        }
    }

    /// iOS gives the app execution time until `end` (it may already have it).
    private func grant(from time: Double, until end: Double) {
        runningUntil = max(runningUntil, end)
        awake.awake(from: time, until: runningUntil)
        scheduleExpiry()
        publishRunningTime()
    }

    /// What `UIApplication.backgroundTimeRemaining` would say: unlimited while kept running.
    private func publishRunningTime() {
        let until: Double? = keptRunning ? nil : runningUntil
        ports.state.withLock { $0.runningUntil = until }
    }

    /// Background location updates ended at `time`: the seconds they kept the app awake count.
    private func locationStopped(at time: Double) {
        guard let since = backgroundLocationSince else { return }
        let end = min(time, plan.length)
        outcome.usage.backgroundLocationSeconds += max(0, end - since)
        awake.ended(at: time)
        backgroundLocationSince = nil
    }

    /// Regions monitored × seconds, up to `time` (the set as it stood since the last count).
    private func countMonitoring(until time: Double) {
        let end = min(time, plan.length)
        guard end > monitoringCountedUntil else { return }
        let regions = forceQuit || end <= offUntil ? 0 : ports.state.value.monitored.count
        outcome.usage.monitoredRegionSeconds += Double(regions) * (end - monitoringCountedUntil)
        monitoringCountedUntil = end
    }

    /// The simulated days are over: what ran on is counted up to their end, and the network's
    /// requests and bytes so far.
    private func closeUsage(at end: Double) {
        countMonitoring(until: end)
        if keptRunning {
            locationStopped(at: end)
            backgroundLocationSince = end
        }
        outcome.usage.awakeSeconds = awake.seconds(until: end)
        outcome.usage.requests = network.counters.requests
        outcome.usage.bytes = network.bytesSoFar
    }

    /// The app has execution time: within its background time, or kept running by background
    /// location updates.
    private func isRunning(at time: Double) -> Bool {
        device != nil && (time <= runningUntil || keptRunning)
    }

    private func scheduleTick(after time: Double) {
        guard !tickScheduled, isRunning(at: time + 1), !ports.state.value.ranging.isEmpty else { return }
        tickScheduled = true
        queue.push(.rangingTick, at: time + 1)
    }

    private func scheduleExpiry() {
        guard expiryScheduledFor == nil else { return }
        expiryScheduledFor = runningUntil
        queue.push(.backgroundExpiry, at: runningUntil)
    }

    private func setClock(_ time: Double) {
        let target = epoch.addingTimeInterval(time)
        if target > clock.now() { clock.set(target) }
    }

    /// iOS's own arrival reminder: shown when the phone enters the UUID-wide region (no site of
    /// the UUID was inside) and the app has one scheduled, whether or not the app can run.
    private func arrivalReminderIfDue(_ callback: RegionCallback, region: BeaconRegion, phoneOn: Bool) {
        let sameUUID = insideSites.filter { regionOf(site: $0).uuid == region.uuid }
        if callback.entered { insideSites.insert(callback.siteIndex) } else { insideSites.remove(callback.siteIndex) }
        guard phoneOn, callback.entered, sameUUID.isEmpty,
            ports.state.value.arrivalReminders.values.contains(region.uuid)
        else { return }
        arrivalReminderShowing = true
        outcome.faults.arrivalRemindersDelivered += 1
    }

    private func regionOf(site index: Int) -> BeaconRegion {
        BeaconRegion(site: Simulation.siteBeacon(world.sites[index]))
    }

    /// The engine's audit records (seconds of the run, kind, site major, detail), then the
    /// ranging trace in the replay format (`attendance replay` reads it back).
    private func writeLog(to path: String) throws {
        var lines = [
            "# \(plan.profile.id) (\(plan.access.rawValue)): audit records, seconds since the simulation's start"
        ]
        for record in try store.telemetry() {
            let seconds = String(format: "%.1f", record.at.timeIntervalSince(epoch))
            lines.append(
                "\(seconds) \(record.kind.rawValue) \(record.site.map { "major \($0.major)" } ?? "-") \(record.detail)")
        }
        lines.append("# ranging trace (replay format)")
        lines.append(ReplayTrace.header)
        lines += try store.traceLines()
        do {
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw Simulation.Failure(description: "can't write '--phone-log' \(path): \(error.localizedDescription)")
        }
    }

    /// After the simulated days: pending decisions settle, the network is back for good, and the
    /// employee opens the app until everything recorded has been delivered (or refused).
    private func settle() async throws {
        network.settle()
        var time = plan.length
        offUntil = -.infinity
        forceQuit = false
        for _ in 0..<200 {
            setClock(time)
            try await wake(at: time, reason: .userOpened, budget: Self.foregroundSeconds)
            try await call(.engine(.timerFired(.nextDecision)))
            try await call(.drain)
            let counts = try store.counts()
            if counts.undelivered == 0 { break }
            let next =
                try store.earliestPendingAttempt(heartbeatHoldSeconds: configuration.heartbeatHoldSeconds)?
                .timeIntervalSince(epoch) ?? time + 60
            time = max(clock.now().timeIntervalSince(epoch), next) + 1
        }
    }
}
