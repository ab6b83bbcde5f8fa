import AttendanceModels
import Foundation

/// One stay at a site, from check-in to check-out.
public struct PresenceSession: Hashable, Sendable, Codable {
    public var key: SessionKey
    public var site: SiteBeacon
    /// When the stay began (first qualifying sample or region entry; for manual, when asked).
    public var checkInAt: Date
    /// The last time the site was heard (or evidenced by iOS saying we are inside).
    public var lastHeardAt: Date
    /// The `ts` of the last heartbeat sent, or the check-in time before the first one.
    public var lastHeartbeatAt: Date
    public var source: EventSource
    /// Whether a beacon corroborated the session since check-in. A manual check-in at a site
    /// whose beacons are silent is not checked out by ranging silence.
    public var heardSinceCheckIn: Bool
    /// When the check-in was decided (nil in snapshots from before this was kept). A dwell
    /// check-in is dated minutes before it: the walk in to the desk falls in between, and must
    /// not be taken for the walk out.
    public var decidedAt: Date? = nil
}

/// Why the engine believes the employee may have left.
public enum ExitCause: String, Hashable, Sendable, Codable {
    /// iOS reported a region exit (about `regionExitDelaySeconds` after the last packet).
    case regionExit
    /// iOS reported the region state as outside (e.g. on launch or screen-on).
    case regionStateOutside
    /// Ranging ran and did not hear the site for `softExitGraceSeconds`.
    case rangingSilence
    /// The campus geofence was exited while a soft exit was pending.
    case geofenceExit
}
