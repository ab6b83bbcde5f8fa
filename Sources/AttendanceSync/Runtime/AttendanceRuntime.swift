import AttendanceEngine
import AttendanceModels
import Foundation

/// Runs the engine on a device (or in the simulator): feeds it events with the clock's time,
/// commits the new state together with what it enqueued, then performs its actions through the
/// ports. The order is the durability rule: state and events are on disk before any action runs,
/// so a kill at any instant resumes from a state consistent with the outbox.
///
/// One event at a time: performing actions awaits ports (a motion query, the uploads of a drain),
/// and an actor lets other calls in at every `await`. So each call from outside (`send`, `launch`,
/// `drain`, `networkBecameReachable`, `timerFired`) takes a turn: callers wait, first come first
/// served, until the event before theirs has been handled, committed and acted on. The events an
/// action leads to (the motion answer, the drain's report) are handled within the turn of the
/// event that asked for them, as they were before turns, so they never wait for themselves.
public actor AttendanceRuntime {
    public struct Ports: Sendable {
        public var clock: any AttendanceClock
        public var radio: any BeaconRadio
        public var motion: any MotionProvider
        public var timers: any TimerScheduler
        public var background: any BackgroundTime
        public var notifier: any Notifier
        public var uploader: any Uploader
        public var telemetry: (any TelemetrySink)?

        public init(clock: any AttendanceClock, radio: any BeaconRadio, motion: any MotionProvider,
                    timers: any TimerScheduler, background: any BackgroundTime, notifier: any Notifier,
                    uploader: any Uploader, telemetry: (any TelemetrySink)? = nil) {
            self.clock = clock
            self.radio = radio
            self.motion = motion
            self.timers = timers
            self.background = background
            self.notifier = notifier
            self.uploader = uploader
            self.telemetry = telemetry
        }
    }

    /// The names the runtime gives its timers.
    public enum TimerName {
        public static let engine = "engine.nextDecision"
        public static let delivery = "delivery.nextAttempt"
    }

    public private(set) var engine: Engine
    public let store: DeviceStore
    private let ports: Ports
    private let drainer: OutboxDrainer
    private let encoder = JSONEncoder()
    /// When the engine's snapshot was last written, and the trace rows not written since.
    private var checkpointedAt: Date?
    /// The time of the last event handled.
    private var lastHandledAt: Date?
    /// How far before the last event handled a reported time is taken as a reordering.
    static let reorderToleranceSeconds: Double = 60
    private var unwrittenTrace: [String] = []

    /// Whether the engine has changed since its snapshot was last written (soft state only).
    private var snapshotStale = false

    /// Whether a turn is under way, and the calls waiting for theirs, in the order they came.
    private var turnTaken = false
    private var waitingForTurn: [CheckedContinuation<Void, Never>] = []

    /// At most this long between snapshot writes while events change only soft state (window
    /// samples and roll-overs, dwell evidence, last-heard times, the latest motion and upload
    /// answers; `Engine.checkpointKey`). Only the events the app sees all day defer: ranging,
    /// motion answers, region state at a screen wake, the decision timer and upload results, and
    /// only when all they ask for is soft too (an audit line, the timer, a motion query). Every
    /// other event, and every event that decides, enqueues or asks iOS for anything else, is
    /// written before it acts. Audit lines are never deferred: a soft step that records one
    /// commits it (without the snapshot) before going on.
    public static let checkpointSeconds: Double = 30

    /// Restores the engine from the store's snapshot when there is one (the app was killed or
    /// the phone rebooted); otherwise starts a new engine with `configuration`.
    public init(store: DeviceStore, configuration: Configuration, ports: Ports,
                retryPolicy: RetryPolicy = RetryPolicy(),
                jitterSeed: UInt64 = UInt64.random(in: .min ... .max)) throws {
        self.store = store
        self.ports = ports
        if let snapshot = try store.loadSnapshot() {
            engine = try Engine.restore(from: snapshot)
        } else {
            engine = Engine(configuration: configuration)
        }
        let background = ports.background
        drainer = OutboxDrainer(store: store, uploader: ports.uploader, clock: ports.clock, policy: retryPolicy,
                                jitterSeed: jitterSeed, timeLeft: { background.remainingSeconds() })
    }

    /// App launch (or relaunch by iOS): in-flight uploads are pending again, old delivered rows
    /// are compacted, and the engine settles what is pending, re-monitors and drains. `at`: when
    /// the process was started (the engine's time for the launch), else the clock's.
    public func launch(_ reason: LaunchReason, at: Date? = nil) async throws {
        try await inTurn {
            try store.recoverInFlight()
            try store.compactDelivered(now: ports.clock.now())
            try await handle(.appLaunched(reason), at: at)
        }
    }

    /// Feeds one event to the engine, once the events sent before it are done: at `at` (when the
    /// platform reported it) or the clock's time. An `at` up to `reorderToleranceSeconds` before
    /// the last event handled (reported while another call was handled first) is handled at the
    /// last one's time; one further back is a clock set back, and is taken as it is.
    public func send(_ event: EngineEvent, at: Date? = nil) async throws {
        try await inTurn { try await handle(event, at: at) }
    }

    /// Runs `body` as the next turn: after every turn that was under way or waiting when this was
    /// called, and before any that is asked for meanwhile. Only the public entry points take turns.
    private func inTurn(_ body: () async throws -> Void) async throws {
        if turnTaken {
            // The turn passes straight from the one before (`passTurn`): `turnTaken` stays set.
            await withCheckedContinuation { waitingForTurn.append($0) }
        } else {
            turnTaken = true
        }
        defer { passTurn() }
        try await body()
    }

    private func passTurn() {
        if waitingForTurn.isEmpty {
            turnTaken = false
        } else {
            waitingForTurn.removeFirst().resume()
        }
    }

    /// One event, within the current turn: the transition, its commit, then its actions.
    private func handle(_ event: EngineEvent, at: Date? = nil) async throws {
        var now = at ?? ports.clock.now()
        if let at, let last = lastHandledAt, at < last, last.timeIntervalSince(at) <= Self.reorderToleranceSeconds {
            now = last
        }
        lastHandledAt = now
        // What the actions bring back within this turn (a motion answer, a drain's report) is
        // handled at this event's time when it had a reported one, so the engine's times stay in
        // order and the events that waited behind this turn keep theirs.
        let consequencesAt = at == nil ? nil : now
        let keyBefore = engine.checkpointKey
        let actions = engine.handle(event, now: now)
        unwrittenTrace += traceLines(for: event, at: now)
        let keyUnchanged = engine.checkpointKey == keyBefore
        let telemetry = actions.compactMap(Self.telemetryRecord)
        let deferred = Self.mayDefer(event) && keyUnchanged && actions.allSatisfy(Self.isSoft)
            && checkpointedAt.map { now.timeIntervalSince($0) < Self.checkpointSeconds } == true
        if deferred {
            // Soft state only: the snapshot is written with the next checkpoint (a kill loses the
            // soft state since); audit lines are written now, with the trace rows so far.
            snapshotStale = true
            guard !telemetry.isEmpty else { return try await perform(actions, at: consequencesAt) }
        }
        // About to be suspended with the stored snapshot already this state: only the trace row.
        let suspendedUnchanged = event == .backgroundTimeExpiring && actions.isEmpty && keyUnchanged && !snapshotStale
        let writesSnapshot = !deferred && !suspendedUnchanged
        let transition = DeviceStore.Transition(snapshot: writesSnapshot ? try encoder.encode(engine) : nil,
                                                events: actions.compactMap(Self.enqueued), telemetry: telemetry,
                                                traceLines: unwrittenTrace)
        try store.commit(transition, at: now)
        unwrittenTrace = []
        if writesSnapshot {
            checkpointedAt = now
            snapshotStale = false
        }
        try await perform(actions, at: consequencesAt)
    }

    /// The network became reachable: failures that were the network's are due now.
    public func networkBecameReachable() async throws {
        try await inTurn {
            try store.resetTransportBackoff(now: ports.clock.now())
            try await handle(.networkReachable)
        }
    }

    /// A timer the runtime scheduled has fired (each case takes its own turn).
    public func timerFired(_ name: String) async throws {
        switch name {
        case TimerName.engine: try await send(.timerFired(.nextDecision))
        case TimerName.delivery: try await drain()
        default: break
        }
    }

    /// Sends what is due, tells the engine how it went, and sets the delivery timer for the
    /// next retry (on iOS, background refresh and the background URLSession cover a suspended app).
    public func drain() async throws {
        try await inTurn { try await drainInTurn() }
    }

    /// A drain within the current turn: asked for by an event's actions (`at`: that event's
    /// reported time), or by `drain()`.
    private func drainInTurn(at: Date? = nil) async throws {
        let hold = engine.configuration.heartbeatHoldSeconds
        guard let report = try await drainer.drain(heartbeatHoldSeconds: hold) else { return }
        try await handle(.uploadFinished(report), at: at)
        if await drainer.stoppedForTime {
            // Not before the background time is up: the timer is then overdue at the next wake.
            let after = ports.clock.now().addingTimeInterval(drainer.secondsPerRequest)
            let next = try store.earliestPendingAttempt(heartbeatHoldSeconds: hold) ?? after
            ports.timers.schedule(TimerName.delivery, at: max(after, next))
        } else if let next = try store.earliestPendingAttempt(heartbeatHoldSeconds: hold) {
            ports.timers.schedule(TimerName.delivery, at: next)
        } else {
            ports.timers.cancel(TimerName.delivery)
        }
    }

    public func outboxCounts() throws -> OutboxCounts { try store.counts() }

    /// The runtime's clock (screens show times relative to it).
    public func now() -> Date { ports.clock.now() }

    private func perform(_ actions: [EngineAction], at: Date?) async throws {
        var drainRequested = false
        var motionQueries: [Double] = []
        for action in actions {
            switch action {
            case .monitorRegions(let regions): ports.radio.monitor(regions)
            case .startRanging(let region): ports.radio.startRanging(region)
            case .stopRanging(let region): ports.radio.stopRanging(region)
            case .requestRegionState(let region): ports.radio.requestState(region)
            case .scheduleTimer(_, let time): ports.timers.schedule(TimerName.engine, at: time)
            case .cancelTimer: ports.timers.cancel(TimerName.engine)
            case .beginBackgroundTask: ports.background.begin()
            case .endBackgroundTask: ports.background.end()
            case .startBackgroundLocation: ports.radio.setBackgroundLocationUpdates(true)
            case .stopBackgroundLocation: ports.radio.setBackgroundLocationUpdates(false)
            case .notify(let notification): ports.notifier.show(notification)
            case .withdrawNotification(let identifier): ports.notifier.withdraw(identifier)
            case .recordTelemetry(let record): ports.telemetry?.record(record)
            case .enqueue: break   // committed above, with the state
            case .drainOutbox: drainRequested = true
            case .queryMotion(let minutes): motionQueries.append(minutes)
            }
        }
        // A motion answer is an event of its own, handled within this turn but only once this
        // event's actions are all performed: its own actions follow from the state after them
        // (handled in their midst, a stop it asks for would come before the start it undoes).
        for minutes in motionQueries {
            if let snapshot = await ports.motion.snapshot(lookbackMinutes: minutes) {
                try await handle(.motionUpdated(snapshot), at: at)
            }
        }
        if drainRequested { try await drainInTurn(at: at) }
    }

    /// The repeated events whose soft-state-only changes may wait for the next checkpoint.
    private static func mayDefer(_ event: EngineEvent) -> Bool {
        switch event {
        case .beaconsRanged, .motionUpdated, .regionStateDetermined, .timerFired, .uploadFinished: return true
        default: return false
        }
    }

    /// Actions a soft step may take before its state is written: an audit line (committed at
    /// once), the decision timer (a relaunch reschedules it from the restored state) and a motion
    /// query (its answer is an event of its own). A kill loses nothing iOS would remember.
    private static func isSoft(_ action: EngineAction) -> Bool {
        switch action {
        case .recordTelemetry, .scheduleTimer, .cancelTimer, .queryMotion: return true
        default: return false
        }
    }

    private static func telemetryRecord(_ action: EngineAction) -> TelemetryRecord? {
        if case .recordTelemetry(let record) = action { return record }
        return nil
    }

    private static func enqueued(_ action: EngineAction) -> AttendanceEvent? {
        if case .enqueue(let event) = action { return event }
        return nil
    }

    /// What the engine saw, in the replay trace format, for the diagnostics export.
    private func traceLines(for event: EngineEvent, at now: Date) -> [String] {
        if case .beaconsRanged(let samples, _) = event { return TraceWriter.rows(for: samples, at: now) }
        return TraceEvent.describing(event, at: now).map { TraceWriter.row(for: $0, at: now) }
    }
}
