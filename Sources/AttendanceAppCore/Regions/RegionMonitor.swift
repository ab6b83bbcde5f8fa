import AttendanceEngine
import AttendanceModels
import Foundation

/// What the location manager monitors, decided here; `LocationService` only translates the
/// actions into CoreLocation calls. A state machine as a value: events in, actions out.
///
/// | event | before the engine has spoken in this process | after |
/// |---|---|---|
/// | `engineRequested(regions)` | it has spoken: plan | plan |
/// | `configurationChanged` | kept | plan |
/// | `authorizationChanged(.always)` | kept | plan |
/// | `authorizationChanged(other)` | kept | nothing: what is monitored stays |
/// | `locationChanged` | kept | plan (the nearest geofences) |
///
/// Planning stops what the plan no longer holds and starts what is new (`RegionBudget`: beacon
/// regions first, then the nearest geofences, 20 in all), and runs significant-location changes
/// and visits while there are sites. Nothing is stopped before the engine has said which regions
/// it wants in this process: iOS keeps monitoring across launches, and the authorization callback
/// that comes when the manager is created, before the launch has built the engine, must not
/// stop the regions whose event relaunched the app.
public struct RegionMonitor: Hashable, Sendable {
    public enum Event: Hashable, Sendable {
        /// The engine's `monitor(regions)`: the regions it wants.
        case engineRequested([BeaconRegion])
        /// The remote configuration, at launch and at each refresh (its sites' geofences).
        case configurationChanged(Configuration)
        case authorizationChanged(Permissions.Location)
        /// A location update, a significant change or a visit: where the phone is now.
        case locationChanged(latitude: Double, longitude: Double)
    }

    /// A region to register, under the identifier a callback maps back from.
    public enum Region: Hashable, Sendable {
        case beacon(BeaconRegion)
        case geofence(RegionBudget.SiteGeofence)

        public var identifier: String {
            switch self {
            case .beacon(let region): RegionMonitor.identifier(region)
            case .geofence(let fence): fence.identifier
            }
        }
    }

    public enum Action: Hashable, Sendable {
        case stopMonitoring(identifier: String)
        case startMonitoring(Region)
        /// Significant-location changes and visits: they relaunch a terminated app near a site.
        case startLocationWakes
        /// Why the plan differs from what was asked (Diagnostics).
        case notes([String])
    }

    /// The engine's regions in this process; nil until it has said.
    public private(set) var requested: [BeaconRegion]?
    public private(set) var configuration = Configuration()
    public private(set) var authorization: Permissions.Location = .notDetermined
    /// Where the phone was last reported (orders the geofences, nearest first).
    public private(set) var position: Position?

    public struct Position: Hashable, Sendable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public init() {}

    /// `monitored`: the identifiers the location manager monitors now (iOS keeps them across launches).
    public mutating func handle(_ event: Event, monitored: Set<String>) -> [Action] {
        switch event {
        case .engineRequested(let regions):
            requested = regions
        case .configurationChanged(let configuration):
            self.configuration = configuration
        case .authorizationChanged(let location):
            authorization = location
            guard location == .always else { return [] }
        case .locationChanged(let latitude, let longitude):
            position = Position(latitude: latitude, longitude: longitude)
        }
        return plan(monitored: monitored)
    }

    private func plan(monitored: Set<String>) -> [Action] {
        guard let requested else { return [] }
        let plan = RegionBudget.plan(
            requested: requested, configuration: configuration, latitude: position?.latitude,
            longitude: position?.longitude)
        let wanted = plan.beaconRegions.map(Region.beacon) + plan.geofences.map(Region.geofence)
        let wantedIdentifiers = Set(wanted.map(\.identifier))
        var actions: [Action] = plan.notes.isEmpty ? [] : [.notes(plan.notes)]
        actions += monitored.subtracting(wantedIdentifiers).sorted().map { .stopMonitoring(identifier: $0) }
        actions += wanted.filter { !monitored.contains($0.identifier) }.map(Action.startMonitoring)
        if !plan.geofences.isEmpty || !configuration.sites.isEmpty { actions.append(.startLocationWakes) }
        return actions
    }

    /// The identifier a beacon region is registered under.
    public static func identifier(_ region: BeaconRegion) -> String { "beacon:" + region.description }
}
