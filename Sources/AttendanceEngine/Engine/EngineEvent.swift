import AttendanceModels
import Foundation

/// Everything the engine can be told, by Apple adapters on a phone or by the simulator.
public enum EngineEvent: Hashable, Sendable, Codable {
    case appLaunched(LaunchReason)
    case regionEntered(BeaconRegion)
    case regionExited(BeaconRegion)
    case regionStateDetermined(BeaconRegion, RegionState)
    /// One ranging callback (1 Hz). Beacons not heard this second come with `rssi == 0`.
    case beaconsRanged([BeaconSample], region: BeaconRegion)
    case motionUpdated(MotionSnapshot)
    case geofenceEntered(SiteBeacon)
    case geofenceExited(SiteBeacon)
    /// A significant-location-change or visit callback: execution time, nothing more.
    case locationWake
    case timerFired(EngineTimer)
    /// The app's background time is about to run out: decide with what is known now.
    case backgroundTimeExpiring
    /// The employee's button. `at`: when they say they arrived, if not now (the app offers the
    /// end of their last walk, `MotionSnapshot.arrivedAt`); at most `manualBackdateMaxMinutes` ago.
    case manualCheckIn(SiteBeacon, reason: String, at: Date? = nil)
    /// `nil` site: check out of every open session. `at`: when they say they left, if not now
    /// (the app offers the start of their last walk, `MotionSnapshot.departedAt`).
    case manualCheckOut(SiteBeacon?, reason: String, at: Date? = nil)
    case permissionsChanged(Permissions)
    case configurationUpdated(Configuration)
    case networkReachable
    case uploadFinished(UploadReport)
}

/// Why iOS launched (or woke) the app. `backgroundUpload`: a background URLSession finished
/// (`handleEventsForBackgroundURLSession`); `afterReboot`: the first unlock after a reboot made
/// the app's files readable, with no event of its own (a journal of region events kept while
/// locked is replayed at the launch; docs/ARCHITECTURE.md, "Before the first unlock").
public enum LaunchReason: String, Hashable, Sendable, Codable, CaseIterable {
    case userOpened, regionEvent, backgroundRefresh, locationEvent, bluetoothEvent, afterReboot, backgroundUpload
}

/// The engine's timers. One is enough: it is always set for the earliest pending decision.
public enum EngineTimer: String, Hashable, Sendable, Codable {
    case nextDecision
}

/// The outcome of a drain of the outbox, for the engine's record and the Today screen.
public struct UploadReport: Hashable, Sendable, Codable {
    public var at: Date
    public var delivered: Int
    public var pending: Int
    public var deadLetters: Int
    public var error: String?

    public init(at: Date, delivered: Int, pending: Int, deadLetters: Int, error: String? = nil) {
        self.at = at
        self.delivered = delivered
        self.pending = pending
        self.deadLetters = deadLetters
        self.error = error
    }
}
