import AttendanceModels
import Foundation

/// One `Permissions` snapshot from the platform's separate reports (CoreLocation's authorization,
/// Bluetooth's power state, Background App Refresh's status), for the engine and the server.
/// A snapshot goes out once location and Background App Refresh are known (iOS reports both at
/// launch), and after that on every change of any part; the same snapshot twice goes out once.
/// Bluetooth is `unknown` until a Bluetooth manager reports it (one is created only once
/// onboarding has explained Bluetooth, so that iOS's prompt does not come first).
public struct PermissionMonitor: Hashable, Sendable {
    public enum Report: Hashable, Sendable {
        case location(Permissions.Location, precise: Bool)
        case bluetooth(Permissions.Bluetooth)
        case backgroundRefresh(available: Bool)
    }

    public private(set) var location: Permissions.Location?
    public private(set) var preciseLocation = true
    public private(set) var bluetooth: Permissions.Bluetooth = .unknown
    public private(set) var backgroundRefresh: Bool?
    /// The last snapshot sent.
    public private(set) var sent: Permissions?

    public init() {}

    /// The snapshot to send, if this report completes or changes it.
    public mutating func handle(_ report: Report) -> Permissions? {
        switch report {
        case .location(let access, let precise):
            location = access
            preciseLocation = precise
        case .bluetooth(let state): bluetooth = state
        case .backgroundRefresh(let available): backgroundRefresh = available
        }
        guard let location, let backgroundRefresh else { return nil }
        let snapshot = Permissions(
            location: location, preciseLocation: preciseLocation, bluetooth: bluetooth,
            backgroundRefreshAvailable: backgroundRefresh)
        guard snapshot != sent else { return nil }
        sent = snapshot
        return snapshot
    }
}
