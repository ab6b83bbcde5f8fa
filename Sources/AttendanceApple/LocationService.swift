#if canImport(CoreLocation) && canImport(Darwin)
import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import CoreLocation
import Foundation

/// The app's one `CLLocationManager` (iOS delivers region and ranging callbacks to whichever
/// manager exists when it relaunches the app, so there must be exactly one, created at launch).
/// It is the runtime's `BeaconRadio`, registers what `RegionBudget` allows, and fans callbacks
/// out to listeners: the engine (through `AttendanceDevice`) and the Scanner screen.
public final class LocationService: NSObject, CLLocationManagerDelegate, BeaconRadio, @unchecked Sendable {
    // @unchecked: every mutable property is touched only on the main queue, where CoreLocation
    // delivers delegate callbacks (the manager is created there).

    public enum Callback: Sendable {
        case engine(EngineEvent)
        /// Every ranging callback, for the Scanner (continuous ranging while it is open).
        case ranged([BeaconSample], at: Date)
        case authorization(Permissions.Location, precise: Bool)
        case regionState(BeaconRegion, RegionState)
        case budgetNotes([String])
        case failure(String)
    }

    private let manager = CLLocationManager()
    private var listeners: [UUID: @Sendable (Callback) -> Void] = [:]
    private var requestedRegions: [BeaconRegion] = []
    private var configuration = Configuration()
    private var engineRanging: Set<UUID> = []
    private var scannerRanging: Set<UUID> = []
    public private(set) var regionStates: [BeaconRegion: RegionState] = [:]

    /// Call on the main thread at launch, before `application(_:didFinishLaunchingWithOptions:)` returns.
    public override init() {
        super.init()
        manager.delegate = self
        manager.pausesLocationUpdatesAutomatically = true
        manager.allowsBackgroundLocationUpdates = true
    }

    @discardableResult
    public func addListener(_ listener: @escaping @Sendable (Callback) -> Void) -> UUID {
        let id = UUID()
        onMain { self.listeners[id] = listener }
        return id
    }

    public func removeListener(_ id: UUID) { onMain { self.listeners[id] = nil } }

    private func emit(_ callback: Callback) { for listener in listeners.values { listener(callback) } }

    private func onMain(_ work: @escaping () -> Void) {
        if Thread.isMainThread { work() } else { DispatchQueue.main.async(execute: work) }
    }

    // MARK: - Permissions

    public func requestWhenInUse() { manager.requestWhenInUseAuthorization() }
    /// iOS shows this prompt once, and only after When In Use was granted.
    public func requestAlways() { manager.requestAlwaysAuthorization() }

    public var location: Permissions.Location {
        switch manager.authorizationStatus {
        case .authorizedAlways: .always
        case .authorizedWhenInUse: .whenInUse
        case .denied: .denied
        case .restricted: .restricted
        case .notDetermined: .notDetermined
        @unknown default: .notDetermined
        }
    }

    public var preciseLocation: Bool { manager.accuracyAuthorization == .fullAccuracy }

    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        emit(.authorization(location, precise: preciseLocation))
        if location == .always { replan() }
    }

    // MARK: - Remote configuration

    /// Geofences come from the configuration; call when it changes.
    public func apply(_ configuration: Configuration) {
        onMain {
            self.configuration = configuration
            self.replan()
        }
    }

    // MARK: - BeaconRadio

    public func monitor(_ regions: [BeaconRegion]) {
        onMain {
            self.requestedRegions = regions
            self.replan()
        }
    }

    public func startRanging(_ region: BeaconRegion) {
        onMain {
            self.engineRanging.insert(region.uuid)
            self.manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: region.uuid))
        }
    }

    public func stopRanging(_ region: BeaconRegion) {
        onMain {
            self.engineRanging.remove(region.uuid)
            guard !self.scannerRanging.contains(region.uuid) else { return }
            self.manager.stopRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: region.uuid))
        }
    }

    public func requestState(_ region: BeaconRegion) {
        onMain {
            if let monitored = self.manager.monitoredRegions.first(where: { $0.identifier == Self.identifier(region) }) {
                self.manager.requestState(for: monitored)
            }
        }
    }

    /// Keeps the app running in the background while the engine decides (the `location`
    /// background mode): updates at the lowest accuracy, never paused by iOS, stopped as soon as
    /// the engine has decided or its `backgroundLocationMaxSeconds` is up.
    public func setBackgroundLocationUpdates(_ on: Bool) {
        onMain {
            if on {
                self.manager.allowsBackgroundLocationUpdates = true
                self.manager.pausesLocationUpdatesAutomatically = false
                self.manager.desiredAccuracy = kCLLocationAccuracyThreeKilometers
                self.manager.distanceFilter = 3_000
                self.manager.startUpdatingLocation()
            } else {
                self.manager.stopUpdatingLocation()
            }
        }
    }

    // MARK: - Scanner

    /// Ranges continuously while the Scanner is open (foreground only: iOS stops it in the background).
    public func setScannerRanging(_ uuids: Set<UUID>) {
        onMain {
            for uuid in self.scannerRanging.subtracting(uuids) where !self.engineRanging.contains(uuid) {
                self.manager.stopRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid))
            }
            for uuid in uuids.subtracting(self.scannerRanging) {
                self.manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid))
            }
            self.scannerRanging = uuids
        }
    }

    // MARK: - Regions within the budget

    static func identifier(_ region: BeaconRegion) -> String { "beacon:" + region.description }

    private func replan() {
        let here = manager.location?.coordinate
        let plan = RegionBudget.plan(requested: requestedRegions, configuration: configuration, latitude: here?.latitude, longitude: here?.longitude)
        if !plan.notes.isEmpty { emit(.budgetNotes(plan.notes)) }
        var wanted: [String: CLRegion] = [:]
        for region in plan.beaconRegions {
            let beaconRegion = region.major.map { CLBeaconRegion(uuid: region.uuid, major: $0, identifier: Self.identifier(region)) }
                ?? CLBeaconRegion(uuid: region.uuid, identifier: Self.identifier(region))
            beaconRegion.notifyOnEntry = true
            beaconRegion.notifyOnExit = true
            // A state callback each time the screen turns on: the engine's cheap second chance.
            beaconRegion.notifyEntryStateOnDisplay = true
            wanted[beaconRegion.identifier] = beaconRegion
        }
        for fence in plan.geofences {
            let circle = CLCircularRegion(center: CLLocationCoordinate2D(latitude: fence.geofence.latitude, longitude: fence.geofence.longitude),
                                          radius: min(fence.geofence.radiusMeters, manager.maximumRegionMonitoringDistance),
                                          identifier: fence.identifier)
            circle.notifyOnEntry = true
            circle.notifyOnExit = true
            wanted[circle.identifier] = circle
        }
        for region in manager.monitoredRegions where wanted[region.identifier] == nil { manager.stopMonitoring(for: region) }
        let current = Set(manager.monitoredRegions.map(\.identifier))
        for (identifier, region) in wanted where !current.contains(identifier) { manager.startMonitoring(for: region) }
        // Significant changes and visits relaunch a terminated app and re-plan the nearest geofences.
        if !plan.geofences.isEmpty || !configuration.sites.isEmpty {
            manager.startMonitoringSignificantLocationChanges()
            manager.startMonitoringVisits()
        }
    }

    // MARK: - Callbacks

    private func beaconRegion(_ region: CLRegion) -> BeaconRegion? {
        guard let beacon = region as? CLBeaconRegion else { return nil }
        return BeaconRegion(uuid: beacon.uuid, major: beacon.major.map { UInt16(truncating: $0) })
    }

    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        if let beacon = beaconRegion(region) {
            emit(.engine(.regionEntered(beacon)))
        } else if let site = RegionBudget.SiteGeofence.site(fromIdentifier: region.identifier) {
            emit(.engine(.geofenceEntered(site)))
        }
    }

    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        if let beacon = beaconRegion(region) {
            emit(.engine(.regionExited(beacon)))
        } else if let site = RegionBudget.SiteGeofence.site(fromIdentifier: region.identifier) {
            emit(.engine(.geofenceExited(site)))
        }
    }

    public func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        guard let beacon = beaconRegion(region) else { return }
        let mapped: RegionState = switch state {
        case .inside: .inside
        case .outside: .outside
        default: .unknown
        }
        regionStates[beacon] = mapped
        emit(.regionState(beacon, mapped))
        emit(.engine(.regionStateDetermined(beacon, mapped)))
    }

    public func locationManager(_ manager: CLLocationManager, didRange beacons: [CLBeacon], satisfying constraint: CLBeaconIdentityConstraint) {
        // iOS reports beacons not heard this second with rssi 0, as the engine expects.
        let samples = beacons.map { beacon in
            BeaconSample(beacon: BeaconIdentity(uuid: beacon.uuid, major: UInt16(truncating: beacon.major), minor: UInt16(truncating: beacon.minor)),
                         rssi: beacon.rssi)
        }
        emit(.ranged(samples, at: Date()))
        if engineRanging.contains(constraint.uuid) {
            emit(.engine(.beaconsRanged(samples, region: BeaconRegion(uuid: constraint.uuid))))
        }
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        replan()
        emit(.engine(.locationWake))
    }

    public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        emit(.engine(.locationWake))
    }

    public func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error) {
        emit(.failure("monitoring \(region?.identifier ?? "a region") failed: \(error.localizedDescription)"))
    }

    public func locationManager(_ manager: CLLocationManager, didFailRangingFor beaconConstraint: CLBeaconIdentityConstraint, error: any Error) {
        emit(.failure("ranging \(beaconConstraint.uuid.uuidString) failed: \(error.localizedDescription)"))
    }

    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        emit(.failure("location: \(error.localizedDescription)"))
    }
}
#endif
