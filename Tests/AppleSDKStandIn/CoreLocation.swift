// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation

public typealias CLLocationDegrees = Double
public typealias CLLocationAccuracy = Double
public typealias CLLocationDistance = Double
public typealias CLBeaconMajorValue = UInt16
public typealias CLBeaconMinorValue = UInt16

public let kCLLocationAccuracyThreeKilometers: CLLocationAccuracy = 3000
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1000
public let kCLDistanceFilterNone: CLLocationDistance = -1

public struct CLLocationCoordinate2D: Sendable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
    public init() { latitude = 0; longitude = 0 }
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude; self.longitude = longitude
    }
}

public enum CLAuthorizationStatus: Int32, Sendable {
    case notDetermined = 0, restricted, denied, authorizedAlways, authorizedWhenInUse
}
// The header gives this enum no availability of its own; Apple's page lists it as iOS 2.0+.
public enum CLAccuracyAuthorization: Int, Sendable {
    case fullAccuracy = 0, reducedAccuracy
}
public enum CLRegionState: Int, Sendable {
    case unknown = 0, inside, outside
}
public enum CLProximity: Int, Sendable {
    case unknown = 0, immediate, near, far
}

open class CLLocation: NSObject {
    open var coordinate: CLLocationCoordinate2D { CLLocationCoordinate2D() }
    open var timestamp: Date { Date() }
    open var horizontalAccuracy: CLLocationAccuracy { 0 }
}
open class CLVisit: NSObject {
    open var coordinate: CLLocationCoordinate2D { CLLocationCoordinate2D() }
    open var arrivalDate: Date { Date() }
    open var departureDate: Date { Date() }
}

open class CLRegion: NSObject {
    open var identifier: String { "" }
    open var notifyOnEntry: Bool = true
    open var notifyOnExit: Bool = true
}
// API_TO_BE_DEPRECATED since the iOS 17 SDK; Apple's page now lists it as deprecated in iOS 27.0.
@available(iOS, introduced: 7.0, deprecated: 27.0, message: "Use CLCircularGeographicCondition")
open class CLCircularRegion: CLRegion {
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {}
    open var center: CLLocationCoordinate2D { CLLocationCoordinate2D() }
    open var radius: CLLocationDistance { 0 }
}
// API_TO_BE_DEPRECATED since the iOS 17 SDK; Apple's page now lists it as deprecated in iOS 27.0.
@available(iOS, introduced: 7.0, deprecated: 27.0, message: "Use CLBeaconIdentityCondition")
open class CLBeaconRegion: CLRegion {
    public init(uuid: UUID, identifier: String) {}
    public init(uuid: UUID, major: CLBeaconMajorValue, identifier: String) {}
    public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String) {}
    public init(beaconIdentityConstraint: CLBeaconIdentityConstraint, identifier: String) {}
    open var uuid: UUID { UUID() }
    open var major: NSNumber? { nil }
    open var minor: NSNumber? { nil }
    open var beaconIdentityConstraint: CLBeaconIdentityConstraint { CLBeaconIdentityConstraint(uuid: UUID()) }
    open var notifyEntryStateOnDisplay: Bool = false
}

// API_TO_BE_DEPRECATED since the iOS 17 SDK (where it subclasses CLBeaconIdentityCondition, iOS 17.0+,
// and inherits these initializers from it); Apple's page now lists it as deprecated in iOS 27.0.
@available(iOS, introduced: 13.0, deprecated: 27.0, message: "Use CLBeaconIdentityCondition")
open class CLBeaconIdentityConstraint: NSObject {
    public init(uuid: UUID) {}
    public init(uuid: UUID, major: CLBeaconMajorValue) {}
    public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {}
    open var uuid: UUID { UUID() }
    open var major: CLBeaconMajorValue? { nil }
    open var minor: CLBeaconMinorValue? { nil }
}

open class CLBeacon: NSObject {
    open var timestamp: Date { Date() }
    open var uuid: UUID { UUID() }
    open var major: NSNumber { 0 }
    open var minor: NSNumber { 0 }
    open var proximity: CLProximity { .unknown }
    open var accuracy: CLLocationAccuracy { 0 }
    open var rssi: Int { 0 }
}

public protocol CLLocationManagerDelegate: NSObjectProtocol {
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didRange beacons: [CLBeacon],
                         satisfying beaconConstraint: CLBeaconIdentityConstraint)
    func locationManager(_ manager: CLLocationManager, didFailRangingFor beaconConstraint: CLBeaconIdentityConstraint,
                         error: any Error)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
                         withError error: any Error)
#if !STRICT
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
#endif
    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit)
    @available(iOS 14.0, *)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
#if !STRICT
    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager)
#endif
#if !STRICT
    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager)
#endif
}
#if !STRICT
extension CLLocationManagerDelegate {
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
    public func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState,
                                for region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didRange beacons: [CLBeacon],
                                satisfying beaconConstraint: CLBeaconIdentityConstraint) {}
    public func locationManager(_ manager: CLLocationManager,
                                didFailRangingFor beaconConstraint: CLBeaconIdentityConstraint, error: any Error) {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    public func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
                                withError error: any Error) {}
    public func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {}
    @available(iOS 14.0, *)
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {}
}
#endif

open class CLLocationManager: NSObject {
    public override init() {}
    weak open var delegate: (any CLLocationManagerDelegate)?
    open var pausesLocationUpdatesAutomatically: Bool = true
    open var allowsBackgroundLocationUpdates: Bool = false
    open var desiredAccuracy: CLLocationAccuracy = 0
    open var distanceFilter: CLLocationDistance = 0
    open var location: CLLocation? { nil }
    @available(iOS 14.0, *)
    open var authorizationStatus: CLAuthorizationStatus { .notDetermined }
    @available(iOS 14.0, *)
    open var accuracyAuthorization: CLAccuracyAuthorization { .fullAccuracy }
    open var maximumRegionMonitoringDistance: CLLocationDistance { 0 }
    open var monitoredRegions: Set<CLRegion> { [] }
    open var rangedBeaconConstraints: Set<CLBeaconIdentityConstraint> { [] }
    open func requestWhenInUseAuthorization() {}
    open func requestAlwaysAuthorization() {}
    open func startUpdatingLocation() {}
    open func stopUpdatingLocation() {}
    open func startMonitoringSignificantLocationChanges() {}
    open func stopMonitoringSignificantLocationChanges() {}
    open func startMonitoringVisits() {}
    open func stopMonitoringVisits() {}
    // Apple's page now lists it as deprecated in iOS 27.0 (API_TO_BE_DEPRECATED in the header).
    @available(iOS, introduced: 5.0, deprecated: 27.0, message: "Use CLMonitor to start or stop monitoring constraint")
    open func startMonitoring(for region: CLRegion) {}
    open func stopMonitoring(for region: CLRegion) {}
    // Apple's page now lists it as deprecated in iOS 27.0 (API_TO_BE_DEPRECATED in the header).
    @available(iOS, introduced: 5.0, deprecated: 27.0)
    open func requestState(for region: CLRegion) {}
    open func startRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {}
    open func stopRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {}
    open class func locationServicesEnabled() -> Bool { true }
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { true }
    open class func isRangingAvailable() -> Bool { true }
}
