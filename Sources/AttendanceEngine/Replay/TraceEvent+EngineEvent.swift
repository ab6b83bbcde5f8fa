import AttendanceModels
import Foundation

extension TraceEvent {
    /// The trace rows that record an engine event handled at `time`, so the diagnostics export
    /// replays here. Ranging callbacks are sample rows (`TraceWriter.rows`); timers, uploads and
    /// configuration changes are not part of the format and give none.
    public static func describing(_ event: EngineEvent, at time: Date) -> [TraceEvent] {
        func before(_ given: Date?) -> Double? { given.map { time.timeIntervalSince($0) } }
        switch event {
        case .appLaunched(let reason): return [.launch(reason)]
        case .regionEntered(let region): return [.region(.enter, major: region.major)]
        case .regionExited(let region): return [.region(.exit, major: region.major)]
        case .regionStateDetermined(let region, .inside): return [.region(.inside, major: region.major)]
        case .regionStateDetermined(let region, .outside): return [.region(.outside, major: region.major)]
        case .regionStateDetermined(_, .unknown): return []
        case .motionUpdated(let snapshot): return snapshot.activity == .unknown ? [] : [.motion(snapshot.activity)]
        case .geofenceEntered(let site): return [.geofence(entered: true, major: site.major)]
        case .geofenceExited(let site): return [.geofence(entered: false, major: site.major)]
        case .locationWake: return [.locationWake]
        case .backgroundTimeExpiring: return [.backgroundExpiring]
        case .networkReachable: return [.networkReachable]
        case .manualCheckIn(let site, let reason, let given):
            return [.manualCheckIn(major: site.major, reason: reason, secondsBefore: before(given))]
        case .manualCheckOut(let site, let reason, let given):
            return [.manualCheckOut(major: site?.major, reason: reason, secondsBefore: before(given))]
        case .permissionsChanged(let permissions):
            return [.location(permissions.location), .bluetooth(permissions.bluetooth), .preciseLocation(permissions.preciseLocation)]
        case .beaconsRanged, .timerFired, .configurationUpdated, .uploadFinished: return []
        }
    }
}
