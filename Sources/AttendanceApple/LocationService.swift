#if canImport(CoreLocation) && os(iOS)
import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import CoreLocation
import Foundation

/// The app's one `CLLocationManager` (iOS delivers region and ranging callbacks to whichever
/// manager exists when it relaunches the app, so there must be exactly one, created at launch).
/// It is the runtime's `BeaconRadio`, registers what `RegionMonitor` decides, and fans callbacks
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
    /// What to monitor, decided in AttendanceAppCore; this class performs its actions.
    private var regions = RegionMonitor()
    private var engineRanging: Set<UUID> = []
    private var scannerRanging: Set<UUID> = []
    public private(set) var regionStates: [BeaconRegion: RegionState] = [:]

    /// Call on the main thread at launch, before `application(_:didFinishLaunchingWithOptions:)` returns.
    public override init() {
        super.init()
        manager.delegate = self
        manager.pausesLocationUpdatesAutomatically = true
        manager.allowsBackgroundLocationUpdates = true
        // The last known position orders the geofences until a location update comes.
        if let here = manager.location?.coordinate {
            _ = regions.handle(.locationChanged(latitude: here.latitude, longitude: here.longitude), monitored: [])
        }
    }

    @discardableResult
    public func addListener(_ listener: @escaping @Sendable (Callback) -> Void) -> UUID {
        let id = UUID()
        onMain { self.listeners[id] = listener }
        return id
    }

    public func removeListener(_ id: UUID) { onMain { self.listeners[id] = nil } }

    private func emit(_ callback: Callback) { for listener in listeners.values { listener(callback) } }

    private func onMain(_ work: @escaping @Sendable () -> Void) {
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
        // Also called when the manager is created: `RegionMonitor` changes nothing before the
        // engine has said which regions it wants in this process.
        plan(.authorizationChanged(location))
    }

    // MARK: - Remote configuration

    /// Geofences come from the configuration: `AttendanceDevice` calls this at each launch,
    /// enrollment and refresh (`Platform.configurationApplied`).
    public func apply(_ configuration: Configuration) {
        onMain { self.plan(.configurationChanged(configuration)) }
    }

    // MARK: - BeaconRadio

    public func monitor(_ regions: [BeaconRegion]) {
        onMain { self.plan(.engineRequested(regions)) }
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
            if let monitored = self.manager.monitoredRegions.first(where: { $0.identifier == RegionMonitor.identifier(region) }) {
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

    /// Hands an event to `RegionMonitor` and performs what it decides.
    private func plan(_ event: RegionMonitor.Event) {
        let monitored = manager.monitoredRegions
        for action in regions.handle(event, monitored: Set(monitored.map(\.identifier))) {
            switch action {
            case .notes(let notes):
                emit(.budgetNotes(notes))
            case .stopMonitoring(let identifier):
                if let region = monitored.first(where: { $0.identifier == identifier }) {
                    manager.stopMonitoring(for: region)
                }
            case .startMonitoring(.beacon(let region)):
                let beaconRegion =
                    region.major.map {
                        CLBeaconRegion(uuid: region.uuid, major: $0, identifier: RegionMonitor.identifier(region))
                    } ?? CLBeaconRegion(uuid: region.uuid, identifier: RegionMonitor.identifier(region))
                beaconRegion.notifyOnEntry = true
                beaconRegion.notifyOnExit = true
                // A state callback each time the screen turns on: the engine's cheap second chance.
                beaconRegion.notifyEntryStateOnDisplay = true
                manager.startMonitoring(for: beaconRegion)
            case .startMonitoring(.geofence(let fence)):
                let center = CLLocationCoordinate2D(latitude: fence.geofence.latitude, longitude: fence.geofence.longitude)
                let radius = min(fence.geofence.radiusMeters, manager.maximumRegionMonitoringDistance)
                let circle = CLCircularRegion(center: center, radius: radius, identifier: fence.identifier)
                circle.notifyOnEntry = true
                circle.notifyOnExit = true
                manager.startMonitoring(for: circle)
            case .startLocationWakes:
                manager.startMonitoringSignificantLocationChanges()
                manager.startMonitoringVisits()
            }
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
        if let here = locations.last?.coordinate {
            plan(.locationChanged(latitude: here.latitude, longitude: here.longitude))
        }
        emit(.engine(.locationWake))
    }

    public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        plan(.locationChanged(latitude: visit.coordinate.latitude, longitude: visit.coordinate.longitude))
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
