import AttendanceEngine
import AttendanceModels
import Foundation

// The runtime's side effects, each behind a small port. Live Apple implementations are in
// `AttendanceApple` (CoreLocation, CoreMotion, BackgroundTasks, UserNotifications); the
// simulator's are in `AttendanceSimulation`, the tests' in `AttendanceDeviceTestSupport`.

public protocol AttendanceClock: Sendable {
    func now() -> Date
}

public protocol BeaconRadio: Sendable {
    func monitor(_ regions: [BeaconRegion])
    func startRanging(_ region: BeaconRegion)
    func stopRanging(_ region: BeaconRegion)
    func requestState(_ region: BeaconRegion)
    /// Location updates at the lowest accuracy with background updates allowed: while on, iOS
    /// keeps the app running (and ranging) in the background.
    func setBackgroundLocationUpdates(_ on: Bool)
}

public protocol MotionProvider: Sendable {
    /// What motion looked like over the last `lookbackMinutes`, or nil if unavailable.
    func snapshot(lookbackMinutes: Double) async -> MotionSnapshot?
}

/// Timers by name. On iOS a suspended app's timers do not fire; the engine never depends on it.
public protocol TimerScheduler: Sendable {
    func schedule(_ name: String, at time: Date)
    func cancel(_ name: String)
}

public protocol BackgroundTime: Sendable {
    func begin()
    func end()
    /// The execution time iOS still gives the app, in seconds (nil: not limited, e.g. in the
    /// foreground, or not known). The drainer starts no request that might outlast it.
    func remainingSeconds() -> Double?
}

extension BackgroundTime {
    public func remainingSeconds() -> Double? { nil }
}

public protocol Notifier: Sendable {
    func show(_ notification: LocalNotification)
    /// Removes the pending or shown notification with this identifier, if any.
    func withdraw(_ identifier: String)
}

/// Where audit records also go live (OSLog on iOS, standard error in the CLI).
public protocol TelemetrySink: Sendable {
    func record(_ record: TelemetryRecord)
}

// MARK: - Live, platform-free

public struct SystemClock: AttendanceClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// Timers on a Dispatch queue; `fire` is called with the timer's name.
public final class DispatchTimerScheduler: TimerScheduler, Sendable {
    private let timers = Locked<[String: DispatchSourceTimer]>([:])
    private let queue = DispatchQueue(label: "attendance.timers")
    private let fire: @Sendable (String) -> Void

    public init(fire: @escaping @Sendable (String) -> Void) { self.fire = fire }

    public func schedule(_ name: String, at time: Date) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + max(0, time.timeIntervalSinceNow))
        timer.setEventHandler { [fire] in fire(name) }
        timers.withLock { timers in
            timers[name]?.cancel()
            timers[name] = timer
        }
        timer.resume()
    }

    public func cancel(_ name: String) {
        timers.withLock { timers in
            timers[name]?.cancel()
            timers[name] = nil
        }
    }
}
