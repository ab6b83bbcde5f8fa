import AttendanceModels
import Foundation

/// The on-device attendance engine: `handle(event, now) -> [EngineAction]` over a value state.
///
/// It never reads a clock, starts a timer or does I/O; the runtime passes time in, persists
/// this value (it is `Codable`) after every call, and then performs the returned actions.
/// Iteration is always over sorted arrays, so a restored snapshot decides exactly as the
/// uninterrupted engine would.
///
/// This file holds the state, what screens read of it, and `handle`'s dispatch. The rest is
/// one concern per file: `Engine+Ranging` (iOS's region callbacks, ranged samples, discoveries),
/// `Engine+Reconcile` (settling what is due; ranging, background time and location, motion
/// queries and the timer brought in line with the state), `Engine+Sites` (tracked sites, a site's
/// transition and its outputs as actions), `Engine+Manual` (manual check-in and check-out),
/// `Engine+Reminders` (resume and arrival reminders, the manual prompt), `Engine+Configuration`
/// (permissions and configuration changes) and `Engine+Restore` (snapshots of older versions).
public struct Engine: Hashable, Sendable, Codable {
    public internal(set) var configuration: Configuration
    /// Every tracked site, sorted by `SiteBeacon`.
    var sites: [SitePresence] = []
    /// UUID-wide region events being explored by ranging, at most one per region.
    var discoveries: [SitePresence.Discovery] = []
    /// UUIDs being ranged, sorted.
    var rangingUUIDs: [UUID] = []
    /// When the single decision timer is set for (the earliest deadline), if any.
    var timerAt: Date?
    var backgroundTaskActive = false
    /// Background location updates: on now, and since when a window has wanted them (the cap
    /// counts from there; nil when nothing is deciding).
    var backgroundLocationOn = false
    var backgroundLocationWantedSince: Date?
    var motion: MotionSnapshot?
    var motionQueriedAt: Date?
    public internal(set) var permissions = Permissions()
    var lastPromptAt: Date?
    /// When the pending resume reminder is due (pushed back as the app runs).
    var reminderAt: Date?
    /// The latest check-out at any site: a manual check-in cannot be dated before it.
    var lastCheckOutAt: Date?
    public private(set) var lastUpload: UploadReport?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        trackConfiguredSites()
    }

    // MARK: - Reading

    /// The open sessions (inside or leaving), by site.
    public var openSessions: [PresenceSession] { sites.compactMap(\.session) }

    public func status(of site: SiteBeacon) -> SitePresence.Status {
        sites.first { $0.site == site }?.status ?? .outside
    }

    /// Everything a decision depends on except the soft state ranging rebuilds (window samples,
    /// a window rolling over to the next, dwell evidence, last-heard times, silence runs, the
    /// latest motion and upload answers, and the timer and motion-query times that follow from
    /// them). While it is unchanged and the engine asked for nothing that is not soft, the
    /// runtime may skip writing the snapshot for a while: a kill then loses at most that soft
    /// state, and the relaunch ranges again (`AttendanceRuntime.checkpointSeconds`).
    public var checkpointKey: [Double] {
        var key = sites.flatMap(\.checkpointKey)
        key += discoveries.flatMap { [$0.at.timeIntervalSinceReferenceDate, $0.foundSite ? 1 : 0] }
        // When background location was first wanted bounds how long it may run: a relaunch must
        // not restore an older start (it would refuse the next decision its time).
        key += [Double(rangingUUIDs.count), backgroundTaskActive ? 1 : 0, backgroundLocationOn ? 1 : 0,
                backgroundLocationWantedSince?.timeIntervalSinceReferenceDate ?? -1]
        return key
    }

    public var trackedSites: [SiteBeacon] { sites.map(\.site) }
    public var isRanging: Bool { !rangingUUIDs.isEmpty }

    /// The regions the app should monitor: one per configured site, or one per UUID when
    /// sites are unknown or UUID-wide monitoring is configured.
    public var monitoredRegions: [BeaconRegion] {
        if configuration.regionMonitoring == .perSite, !configuration.sites.isEmpty {
            return configuration.sites
                .map { BeaconRegion(site: $0.beacon(defaultUUID: configuration.proximityUUID)) }
                .sorted()
        }
        let uuids = Set([configuration.proximityUUID] + configuration.sites.compactMap(\.uuid))
        return uuids.map { BeaconRegion(uuid: $0) }.sorted()
    }

    // MARK: - Handling

    public mutating func handle(_ event: EngineEvent, now: Date) -> [EngineAction] {
        var actions: [EngineAction] = []
        var drain = false
        var entered: BeaconRegion?
        settle(at: now, &actions)
        switch event {
        case .beaconsRanged(let samples, let region):
            ranged(samples, in: region, at: now, &actions)
        case .regionEntered(let region):
            regionInside(region, entry: true, at: now, &actions)
            entered = region
            drain = true
        case .regionExited(let region):
            regionLeft(region, cause: .regionExit, at: now, &actions)
            drain = true
        case .regionStateDetermined(let region, .inside):
            regionInside(region, entry: false, at: now, &actions)
        case .regionStateDetermined(let region, .outside):
            regionLeft(region, cause: .regionStateOutside, at: now, &actions)
        case .regionStateDetermined(_, .unknown):
            break
        case .appLaunched:
            // A new process: iOS stopped the old one's ranging, ended its background task and
            // dropped its timers. Forget them, so `reconcile` starts what the state still needs.
            rangingUUIDs = []
            backgroundTaskActive = false
            backgroundLocationOn = false
            backgroundLocationWantedSince = nil
            timerAt = nil
            actions.append(.monitorRegions(monitoredRegions))
            actions.append(contentsOf: monitoredRegions.map(EngineAction.requestRegionState))
            armArrivalReminders(for: monitoredRegions, &actions)
            drain = true
            promptForManualCheckInIfNeeded(at: now, &actions)
        case .motionUpdated(let snapshot):
            motion = snapshot
            let lookbackSeconds = configuration.departureMotionLookbackMinutes * 60
            if let walkStart = snapshot.walkingSince, snapshot.at.timeIntervalSince(walkStart) <= lookbackSeconds {
                for index in sites.indices where sites[index].isLeaving { sites[index].walkedAway(since: walkStart) }
            }
            if let firstWalk = snapshot.firstWalkSince, let historySince = snapshot.historySince {
                for index in sites.indices where sites[index].isLeaving {
                    sites[index].walkedOutUnwatched(since: firstWalk, historySince: historySince,
                                                    unwatchedAfter: lookbackSeconds)
                }
            }
            if configuration.stayedPutHoldsSession, let historySince = snapshot.historySince,
               snapshot.stayedPut(minSteps: configuration.walkingMinSteps) {
                for index in sites.indices where sites[index].isLeaving {
                    mutateSite(index, at: now, &actions) { site, context, outputs in
                        site.stayedPut(historySince: historySince, at: snapshot.at, now: now, context.configuration,
                                       &outputs)
                    }
                }
            }
        case .geofenceEntered(let site):
            if let index = siteIndex(site) ?? trackSite(site) {
                mutateSite(index, at: now, &actions) { site, _, outputs in site.geofenceEntered(at: now, &outputs) }
            }
            promptForManualCheckInIfNeeded(at: now, &actions)
        case .geofenceExited(let site):
            if let index = siteIndex(site) {
                mutateSite(index, at: now, &actions) { site, _, outputs in site.geofenceExited(at: now, &outputs) }
            }
            requestStateOfOpenSessions(&actions)
        case .locationWake:
            requestStateOfOpenSessions(&actions)
        case .timerFired:
            // `settle` above did the work; a timer is only a wake-up.
            if timerAt.map({ now >= $0 }) ?? false { timerAt = nil }
        case .backgroundTimeExpiring:
            for index in sites.indices where sites[index].isConfirming {
                mutateSite(index, at: now, &actions) { site, context, outputs in
                    site.endWindow(at: now, context, &outputs)
                }
            }
            endDiscoveries(where: { _ in true }, at: now, &actions)
        case .manualCheckIn(let site, let reason, let time):
            manualCheckIn(at: site, reason: reason, time: time, now: now, &actions)
        case .manualCheckOut(let site, let reason, let time):
            manualCheckOut(at: site, reason: reason, time: time, now: now, &actions)
        case .permissionsChanged(let newPermissions):
            permissionsChanged(to: newPermissions, at: now, &actions)
        case .configurationUpdated(let newConfiguration):
            apply(newConfiguration, at: now, &actions)
        case .networkReachable:
            drain = true
        case .uploadFinished(let report):
            lastUpload = report
            let detail = "delivered \(report.delivered), pending \(report.pending), dead letters \(report.deadLetters)"
                + (report.error.map { ", error: \($0)" } ?? "")
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .upload, site: nil, detail: detail)))
        }
        reconcile(at: now, &actions)
        // iOS has just shown the arrival reminder too; the app runs, so it is withdrawn.
        if let entered, monitoredRegions.contains(entered) { armArrivalReminders(for: [entered], &actions) }
        pushBackResumeReminder(at: now, &actions)
        // Last, so that everything enqueued above is in the outbox when the drain starts.
        if drain || actions.contains(where: { if case .enqueue = $0 { return true } else { return false } }) {
            actions.append(.drainOutbox)
        }
        return actions
    }
}
