import AttendanceModels
import Foundation

/// One permission snapshot from the platform's separate reports: CoreLocation's authorization,
/// Bluetooth's power state, Background App Refresh's status, motion and notifications.
///
/// Two audiences get it, each on every change of what it reads:
/// - the engine (and through it the server) gets `Permissions`, the part automatic detection
///   depends on. It goes out once location and Background App Refresh are known (iOS reports both
///   at launch), then on every change of location, Bluetooth or Background App Refresh; the same
///   snapshot twice goes out once.
/// - the screens get the whole `PermissionSnapshot`, motion and notifications included, on every
///   change of any part. Motion and notifications do not stop automatic detection, so the engine's
///   snapshot and the server's device state do not carry them.
///
/// Bluetooth is `unknown` until a Bluetooth manager reports it (one is created only once
/// onboarding has explained Bluetooth, so that iOS's prompt does not come first). Motion and
/// notifications are `notDetermined` until reported.
public struct PermissionMonitor: Hashable, Sendable {
    public enum Report: Hashable, Sendable {
        case location(Permissions.Location, precise: Bool)
        case bluetooth(Permissions.Bluetooth)
        case backgroundRefresh(available: Bool)
        case notifications(PermissionSnapshot.Authorization)
        case motion(PermissionSnapshot.Authorization)
        /// iOS has shown its "Change to Always Allow" prompt (it shows it once per install).
        case alwaysPromptShown
    }

    /// What a report changed, for each audience (nil: nothing new for it).
    public struct Changes: Hashable, Sendable {
        public var engine: Permissions?
        public var screens: PermissionSnapshot?
    }

    /// Everything known now, for the screens.
    public private(set) var snapshot = PermissionSnapshot(
        engine: Permissions(location: .notDetermined, bluetooth: .unknown, backgroundRefreshAvailable: true))
    /// The last snapshot sent to the engine.
    public private(set) var sent: Permissions?
    private var locationKnown = false
    private var backgroundRefreshKnown = false

    public init() {}

    /// What to send after this report.
    public mutating func handle(_ report: Report) -> Changes {
        let before = snapshot
        switch report {
        case .location(let access, let precise):
            snapshot.engine.location = access
            snapshot.engine.preciseLocation = precise
            locationKnown = true
        case .bluetooth(let state): snapshot.engine.bluetooth = state
        case .backgroundRefresh(let available):
            snapshot.engine.backgroundRefreshAvailable = available
            backgroundRefreshKnown = true
        case .notifications(let state): snapshot.notifications = state
        case .motion(let state): snapshot.motion = state
        case .alwaysPromptShown: snapshot.alwaysPromptAlreadyShown = true
        }
        var changes = Changes(engine: nil, screens: snapshot == before ? nil : snapshot)
        if locationKnown, backgroundRefreshKnown, snapshot.engine != sent {
            sent = snapshot.engine
            changes.engine = snapshot.engine
        }
        return changes
    }
}
