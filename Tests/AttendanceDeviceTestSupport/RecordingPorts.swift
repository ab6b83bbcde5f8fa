import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// Records every call of every port, in order, as text lines; and answers motion queries.
public final class RecordingPorts: BeaconRadio, MotionProvider, TimerScheduler, BackgroundTime, Notifier, TelemetrySink,
    Sendable
{
    private let calls = Locked<[String]>([])
    private let scheduled = Locked<[String: Date]>([:])
    private let notifications = Locked<[LocalNotification]>([])
    public let motion = Locked<MotionSnapshot?>(nil)

    public init() {}

    public var log: [String] { calls.value }
    public var timers: [String: Date] { scheduled.value }
    public var shownNotifications: [LocalNotification] { notifications.value }

    private func note(_ line: String) { calls.withLock { $0.append(line) } }

    public func monitor(_ regions: [BeaconRegion]) {
        note("monitor \(regions.map(\.description).joined(separator: ","))")
    }
    public func startRanging(_ region: BeaconRegion) { note("startRanging \(region)") }
    public func stopRanging(_ region: BeaconRegion) { note("stopRanging \(region)") }
    public func requestState(_ region: BeaconRegion) { note("requestState \(region)") }
    public func setBackgroundLocationUpdates(_ on: Bool) { note("backgroundLocation \(on ? "on" : "off")") }
    public func snapshot(lookbackMinutes: Double) async -> MotionSnapshot? {
        note("queryMotion \(lookbackMinutes)")
        return motion.value
    }
    public func schedule(_ name: String, at time: Date) {
        note("schedule \(name) \(RFC3339.format(time))")
        scheduled.withLock { $0[name] = time }
    }
    public func cancel(_ name: String) {
        note("cancel \(name)")
        scheduled.withLock { $0[name] = nil }
    }
    public func begin() { note("beginBackgroundTask") }
    public func end() { note("endBackgroundTask") }
    public func show(_ notification: LocalNotification) {
        note("notify \(notification.kind.rawValue)")
        notifications.withLock { $0.append(notification) }
    }
    public func withdraw(_ identifier: String) { note("withdraw \(identifier)") }
    public func record(_ record: TelemetryRecord) {}
}
