import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// The runtime's ports on a simulated iPhone: they record what the app asked iOS for (regions to
/// monitor, ranging, state requests, timers, background tasks, notifications) for the phone's
/// event loop to act on, and answer motion queries from the person's true path.
final class SimulatedPorts: BeaconRadio, MotionProvider, TimerScheduler, BackgroundTime, Notifier, Sendable {
    struct State {
        var monitored: Set<BeaconRegion> = []
        var ranging: Set<BeaconRegion> = []
        var stateRequests: [BeaconRegion] = []
        var timers: [String: Date] = [:]
        var newTimers: [(String, Date)] = []
        var taskBegun = false
        /// A background task the app began and has not ended (its expiration handler runs).
        var taskActive = false
        /// Until when the app has execution time (nil: not limited, kept running or in the
        /// foreground), in seconds of the run.
        var runningUntil: Double?
        /// Background location updates are on: iOS keeps the app running.
        var backgroundLocation = false
        var notifications = 0
        /// When each of the app's pending resume reminders (by sequence) is due (iOS holds them,
        /// so they outlive the app's process), and the reminders scheduled since the last take.
        var reminderAt: [Int: Date] = [:]
        var newReminders: [(sequence: Int, due: Date)] = []
        /// The UUIDs whose arrival reminder iOS holds (shown on entering the UUID-wide region,
        /// app running or not), and whether the app has scheduled one again since the last take
        /// (which withdraws the one shown).
        var arrivalReminders: [String: UUID] = [:]
        var arrivalRearmed = false
    }

    let state = Locked(State())
    private let timeline: Timeline
    private let epoch: Date
    private let clock: SimulatedClock

    init(timeline: Timeline, epoch: Date, clock: SimulatedClock) {
        self.timeline = timeline
        self.epoch = epoch
        self.clock = clock
    }

    func monitor(_ regions: [BeaconRegion]) { state.withLock { $0.monitored = Set(regions) } }
    func startRanging(_ region: BeaconRegion) { state.withLock { _ = $0.ranging.insert(region) } }
    func stopRanging(_ region: BeaconRegion) { state.withLock { _ = $0.ranging.remove(region) } }
    func requestState(_ region: BeaconRegion) { state.withLock { $0.stateRequests.append(region) } }
    func setBackgroundLocationUpdates(_ on: Bool) { state.withLock { $0.backgroundLocation = on } }
    func schedule(_ name: String, at time: Date) {
        state.withLock {
            $0.timers[name] = time
            $0.newTimers.append((name, time))
        }
    }
    func cancel(_ name: String) { state.withLock { _ = $0.timers.removeValue(forKey: name) } }
    func begin() {
        state.withLock {
            $0.taskBegun = true
            $0.taskActive = true
        }
    }
    func end() { state.withLock { $0.taskActive = false } }
    func remainingSeconds() -> Double? {
        guard let until = state.value.runningUntil else { return nil }
        return until - clock.now().timeIntervalSince(epoch)
    }
    func show(_ notification: LocalNotification) {
        state.withLock {
            if notification.kind == .resumeReminder, let due = notification.deliverAt {
                $0.reminderAt[notification.sequence] = due
                $0.newReminders.append((notification.sequence, due))
            } else if notification.kind == .arrivalReminder, let region = notification.region {
                $0.arrivalReminders[notification.identifier] = region.uuid
                $0.arrivalRearmed = true
            } else {
                $0.notifications += 1
            }
        }
    }
    func withdraw(_ identifier: String) {
        state.withLock {
            if $0.arrivalReminders.removeValue(forKey: identifier) != nil { $0.arrivalRearmed = true }
        }
    }

    /// CoreMotion as the person truly moved: walking if they moved in the last 10 s, and a step
    /// per 0.75 m walked in the look-back.
    func snapshot(lookbackMinutes: Double) async -> MotionSnapshot? {
        motion(at: clock.now().timeIntervalSince(epoch), lookbackMinutes: lookbackMinutes)
    }

    /// The snapshot at `time` (seconds of the run).
    func motion(at time: Double, lookbackMinutes: Double) -> MotionSnapshot {
        let moving = timeline.position(at: time).0 != timeline.position(at: time - 10).0
        var walked = 0.0
        var previous = timeline.position(at: time - lookbackMinutes * 60).0
        var t = time - lookbackMinutes * 60
        while t < time {
            t = min(time, timeline.nextWaypointTime(after: t) ?? time)
            let here = timeline.position(at: t).0
            if here != .away, previous != .away { walked += here.distance(to: previous) }
            previous = here
        }
        let walk = latestWalk(before: time, lookbackMinutes: lookbackMinutes)
        return MotionSnapshot(
            at: epoch.addingTimeInterval(time), activity: moving ? .walking : .stationary, confidence: .high,
            steps: Int(walked / 0.75), walkingSince: walk.map { epoch.addingTimeInterval($0.start) },
            walkEndedAt: walk?.end.map { epoch.addingTimeInterval($0) },
            firstWalkSince: firstWalkStart(before: time, lookbackMinutes: lookbackMinutes).map {
                epoch.addingTimeInterval($0)
            },
            historySince: epoch.addingTimeInterval(time - lookbackMinutes * 60))
    }

    /// When the first walk that began in the look-back began (one under way at its start, i.e.
    /// continuing a walked segment, is not a new walk).
    func firstWalkStart(before time: Double, lookbackMinutes: Double) -> Double? {
        let from = time - lookbackMinutes * 60
        var previousWalkEnd = -Double.infinity
        for (a, b) in zip(timeline.waypoints, timeline.waypoints.dropFirst()) where a.time < time && Self.isWalk(a, b) {
            defer { previousWalkEnd = b.time }
            if a.time > from, a.time > previousWalkEnd + 1 { return a.time }
        }
        return nil
    }

    /// The latest walk (a run of walked path segments) in the look-back, if any: its start, and
    /// its end unless it goes on at `time`; what CMMotionActivity's history shows. A jump to or
    /// from far away is not a walk.
    func latestWalk(before time: Double, lookbackMinutes: Double) -> (start: Double, end: Double?)? {
        let from = time - lookbackMinutes * 60
        var start: Double?
        var walkEnd: Double?
        for (a, b) in zip(timeline.waypoints, timeline.waypoints.dropFirst())
        where b.time > from && a.time < time && Self.isWalk(a, b) {
            if let end = walkEnd, a.time <= end + 1 {
                walkEnd = b.time
                continue
            }
            start = max(a.time, from)
            walkEnd = b.time
        }
        guard let start, let walkEnd else { return nil }
        return (start, walkEnd < time ? walkEnd : nil)
    }

    /// A path segment walked: moved between two places on foot (a jump to or from far away is not).
    private static func isWalk(_ a: Waypoint, _ b: Waypoint) -> Bool {
        a.position != b.position && a.position != .away && b.position != .away
    }

    /// Takes the state requests, new timers and new reminders made since the last call.
    func takeRequests() -> (
        states: [BeaconRegion], timers: [(String, Date)], reminders: [(sequence: Int, due: Date)], arrivalRearmed: Bool,
        taskBegun: Bool
    ) {
        state.withLock { state in
            defer {
                state.stateRequests = []
                state.newTimers = []
                state.newReminders = []
                state.arrivalRearmed = false
                state.taskBegun = false
            }
            return (state.stateRequests, state.newTimers, state.newReminders, state.arrivalRearmed, state.taskBegun)
        }
    }
}
