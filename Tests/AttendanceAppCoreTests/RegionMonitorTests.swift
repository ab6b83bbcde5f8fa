import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// `RegionMonitor`, one test per row of its table: what the location manager is told to stop and
/// start, and when it is told nothing.
@Suite struct RegionMonitorTests {
    /// Sites 1…`sites`, each with a geofence 0.1° further north, from 52° N.
    func configuration(sites: Int) -> Configuration {
        var configuration = Configuration()
        configuration.sites = (0..<sites).map { index in
            SiteConfiguration(
                major: UInt16(index + 1),
                geofence: Geofence(latitude: 52 + Double(index) * 0.1, longitude: 13, radiusMeters: 200))
        }
        return configuration
    }

    func regions(_ majors: ClosedRange<UInt16>) -> [BeaconRegion] {
        majors.map { BeaconRegion(site: SiteBeacon(major: $0)) }
    }

    func started(_ actions: [RegionMonitor.Action]) -> [String] {
        actions.compactMap { if case .startMonitoring(let region) = $0 { region.identifier } else { nil } }
    }

    func stopped(_ actions: [RegionMonitor.Action]) -> [String] {
        actions.compactMap { if case .stopMonitoring(let identifier) = $0 { identifier } else { nil } }
    }

    /// What iOS still monitors from the process before: site 1's region and geofence.
    var fromLastProcess: Set<String> {
        [
            RegionMonitor.identifier(BeaconRegion(site: SiteBeacon(major: 1))),
            "geofence:\(SiteBeacon.defaultUUID.uuidString):1",
        ]
    }

    @Test func theLaunchsAuthorizationCallbackStopsNothingBeforeTheEngineSpeaks() {
        var monitor = RegionMonitor()
        // CoreLocation calls locationManagerDidChangeAuthorization as the manager is created, in
        // the background relaunch a region event caused: what iOS monitors must stay.
        #expect(monitor.handle(.authorizationChanged(.always), monitored: fromLastProcess).isEmpty)
        #expect(monitor.handle(.configurationChanged(configuration(sites: 2)), monitored: fromLastProcess).isEmpty)
        #expect(monitor.handle(.locationChanged(latitude: 52, longitude: 13), monitored: fromLastProcess).isEmpty)
        #expect(monitor.requested == nil)
    }

    @Test func theEnginesRegionsArePlannedWithTheConfigurationsGeofences() {
        var monitor = RegionMonitor()
        _ = monitor.handle(.configurationChanged(configuration(sites: 2)), monitored: fromLastProcess)
        let actions = monitor.handle(.engineRequested(regions(1...2)), monitored: fromLastProcess)
        // Site 1's regions are kept as iOS has them; site 2's are added.
        #expect(stopped(actions).isEmpty)
        #expect(
            started(actions) == [
                RegionMonitor.identifier(BeaconRegion(site: SiteBeacon(major: 2))),
                "geofence:\(SiteBeacon.defaultUUID.uuidString):2",
            ])
        #expect(actions.last == .startLocationWakes)
    }

    @Test func whatThePlanNoLongerHoldsIsStopped() {
        var monitor = RegionMonitor()
        let stale: Set<String> = fromLastProcess.union(["beacon:retired-site"])
        let actions = monitor.handle(.engineRequested(regions(1...1)), monitored: stale)
        // No configuration yet: no geofences, and the retired site's region goes.
        #expect(stopped(actions) == ["beacon:retired-site", "geofence:\(SiteBeacon.defaultUUID.uuidString):1"])
        #expect(started(actions).isEmpty)
        #expect(!actions.contains(.startLocationWakes))
    }

    @Test func aConfigurationAfterTheEngineSpokeAddsItsGeofences() {
        var monitor = RegionMonitor()
        let beacon = RegionMonitor.identifier(BeaconRegion(site: SiteBeacon(major: 1)))
        _ = monitor.handle(.engineRequested(regions(1...1)), monitored: [beacon])
        let actions = monitor.handle(.configurationChanged(configuration(sites: 1)), monitored: [beacon])
        #expect(started(actions) == ["geofence:\(SiteBeacon.defaultUUID.uuidString):1"])
        #expect(actions.contains(.startLocationWakes))
    }

    @Test func alwaysAfterTheEngineSpokeStartsWhatIsMissing() {
        var monitor = RegionMonitor()
        _ = monitor.handle(.engineRequested(regions(1...1)), monitored: [])
        let actions = monitor.handle(.authorizationChanged(.always), monitored: [])
        #expect(started(actions) == [RegionMonitor.identifier(BeaconRegion(site: SiteBeacon(major: 1)))])
        #expect(monitor.authorization == .always)
    }

    @Test func anotherAuthorizationChangesNothing() {
        var monitor = RegionMonitor()
        _ = monitor.handle(.engineRequested(regions(1...1)), monitored: [])
        // Monitoring is the engine's; losing Always is reported (permissions), not acted on here.
        #expect(monitor.handle(.authorizationChanged(.whenInUse), monitored: []).isEmpty)
        #expect(monitor.handle(.authorizationChanged(.denied), monitored: []).isEmpty)
        #expect(monitor.authorization == .denied)
    }

    @Test func aNewPositionBringsTheNearestGeofencesIn() {
        var monitor = RegionMonitor()
        let configuration = configuration(sites: 25)
        _ = monitor.handle(.configurationChanged(configuration), monitored: [])
        let first = monitor.handle(
            .engineRequested(Engine(configuration: configuration).monitoredRegions), monitored: [])
        // Twenty-five sites collapse to one UUID-wide region; 19 geofences fit, from site 1 north.
        #expect(first.contains { if case .notes = $0 { true } else { false } })
        let monitored = Set(started(first))
        #expect(monitored.contains("geofence:\(SiteBeacon.defaultUUID.uuidString):1"))
        #expect(!monitored.contains("geofence:\(SiteBeacon.defaultUUID.uuidString):25"))
        // At site 25 (54.4° N): the southern fences make room for the northern ones.
        let moved = monitor.handle(.locationChanged(latitude: 54.4, longitude: 13), monitored: monitored)
        #expect(stopped(moved).contains("geofence:\(SiteBeacon.defaultUUID.uuidString):1"))
        #expect(started(moved).contains("geofence:\(SiteBeacon.defaultUUID.uuidString):25"))
        #expect(monitor.position == RegionMonitor.Position(latitude: 54.4, longitude: 13))
    }
}
