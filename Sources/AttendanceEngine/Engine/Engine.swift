import AttendanceModels
import Foundation

/// The on-device attendance engine: `handle(event, now) -> [EngineAction]` over a value state.
///
/// It never reads a clock, starts a timer or does I/O; the runtime passes time in, persists
/// this value (it is `Codable`) after every call, and then performs the returned actions.
/// Iteration is always over sorted arrays, so a restored snapshot decides exactly as the
/// uninterrupted engine would.
public struct Engine: Hashable, Sendable, Codable {
    public private(set) var configuration: Configuration
    /// Every tracked site, sorted by `SiteBeacon`.
    private var sites: [SitePresence] = []
    /// UUID-wide region events being explored by ranging, at most one per region.
    private var discoveries: [SitePresence.Discovery] = []
    /// UUIDs being ranged, sorted.
    private var rangingUUIDs: [UUID] = []
    /// When the single decision timer is set for (the earliest deadline), if any.
    private var timerAt: Date?
    private var backgroundTaskActive = false
    /// Background location updates: on now, and since when a window has wanted them (the cap
    /// counts from there; nil when nothing is deciding).
    private var backgroundLocationOn = false
    private var backgroundLocationWantedSince: Date?
    private var motion: MotionSnapshot?
    private var motionQueriedAt: Date?
    public private(set) var permissions = Permissions()
    private var lastPromptAt: Date?
    /// When the pending resume reminder is due (pushed back as the app runs).
    private var reminderAt: Date?
    /// The latest check-out at any site: a manual check-in cannot be dated before it.
    private var lastCheckOutAt: Date?
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
            return configuration.sites.map { BeaconRegion(site: $0.beacon(defaultUUID: configuration.proximityUUID)) }.sorted()
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
            if let walkStart = snapshot.walkingSince, snapshot.at.timeIntervalSince(walkStart) <= configuration.departureMotionLookbackMinutes * 60 {
                for index in sites.indices where sites[index].isLeaving { sites[index].walkedAway(since: walkStart) }
            }
            if let firstWalk = snapshot.firstWalkSince, let historySince = snapshot.historySince {
                for index in sites.indices where sites[index].isLeaving {
                    sites[index].walkedOutUnwatched(since: firstWalk, historySince: historySince, unwatchedAfter: configuration.departureMotionLookbackMinutes * 60)
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
                mutateSite(index, at: now, &actions) { site, context, outputs in site.endWindow(at: now, context, &outputs) }
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

    // MARK: - Events

    private mutating func ranged(_ samples: [BeaconSample], in region: BeaconRegion, at now: Date, _ actions: inout [EngineAction]) {
        // Sites heard for the first time are tracked (if allowed) before the pass below.
        for sample in samples where sample.rssi != 0 && siteIndex(sample.beacon.site) == nil {
            _ = trackSite(sample.beacon.site)
        }
        // The loudest site this callback: a site heard only below another is probably a neighbour.
        let loudest = samples.lazy.filter { $0.rssi != 0 }.map(\.rssi).max() ?? 0
        var index = 0
        while index < sites.count {
            let site = sites[index].site
            if region.contains(site) {
                // The strongest beacon of the site this second; minors don't matter.
                var strongest = 0
                var others = false
                for sample in samples where sample.rssi != 0 && sample.beacon.uuid == site.uuid {
                    if sample.beacon.major == site.major {
                        strongest = strongest == 0 ? sample.rssi : max(strongest, sample.rssi)
                    } else {
                        others = true
                    }
                }
                if strongest != 0 {
                    let discoveryIndex = discoveries.firstIndex { $0.region.contains(site) }
                    if let discoveryIndex { discoveries[discoveryIndex].foundSite = true }
                    let discovery = discoveryIndex.map { discoveries[$0] }
                    mutateSite(index, at: now, &actions) { presence, context, outputs in
                        presence.heard(rssi: strongest, at: now, discovery: discovery, outranked: strongest < loudest, alongside: others, context, &outputs)
                    }
                } else {
                    mutateSite(index, at: now, &actions) { presence, context, outputs in presence.silent(at: now, neighbourHeard: loudest != 0, context, &outputs) }
                }
            }
            index += 1
        }
    }

    private mutating func regionInside(_ region: BeaconRegion, entry: Bool, at now: Date, _ actions: inout [EngineAction]) {
        if let major = region.major {
            guard let index = siteIndex(SiteBeacon(uuid: region.uuid, major: major)) ?? trackSite(SiteBeacon(uuid: region.uuid, major: major)) else { return }
            mutateSite(index, at: now, &actions) { site, context, outputs in
                entry ? site.regionEntered(at: now, context, &outputs) : site.regionStateInside(at: now, context, &outputs)
            }
            return
        }
        // A UUID-wide region: update the sessions it covers, and range to find out which
        // sites are there.
        for index in sites.indices where region.contains(sites[index].site) && sites[index].session != nil {
            mutateSite(index, at: now, &actions) { site, context, outputs in
                entry ? site.regionEntered(at: now, context, &outputs) : site.regionStateInside(at: now, context, &outputs)
            }
        }
        if let existing = discoveries.firstIndex(where: { $0.region == region }) {
            // An entry outranks a state callback: it dates the arrival.
            if entry && discoveries[existing].trigger != .regionEntry {
                discoveries[existing] = SitePresence.Discovery(region: region, trigger: .regionEntry, at: now)
            }
        } else {
            discoveries.append(SitePresence.Discovery(region: region, trigger: entry ? .regionEntry : .regionState, at: now))
            discoveries.sort { $0.region < $1.region }
        }
    }

    private mutating func regionLeft(_ region: BeaconRegion, cause: ExitCause, at now: Date, _ actions: inout [EngineAction]) {
        if region.major != nil, siteIndex(SiteBeacon(uuid: region.uuid, major: region.major!)) == nil {
            return
        }
        var departing = false
        for index in sites.indices where region.contains(sites[index].site) {
            let open = sites[index].session != nil && !sites[index].isLeaving
            mutateSite(index, at: now, &actions) { site, context, outputs in site.regionLeft(at: now, cause: cause, context, &outputs) }
            departing = departing || (open && sites[index].isLeaving)
        }
        if departing, configuration.departureMotionLookbackMinutes > 0 {
            // Reported long after the site was last heard (the app could not run: force-quit,
            // phone off), the look-back reaches back to that evidence, within CoreMotion's 7 days.
            let lookback = configuration.departureMotionLookbackMinutes
            let lastEvidence = sites.filter { $0.isLeaving && region.contains($0.site) }.compactMap { $0.session?.lastHeardAt }.min()
            let unwatched = lastEvidence.map { now.timeIntervalSince($0) / 60 } ?? 0
            actions.append(.queryMotion(lookbackMinutes: unwatched > lookback ? min(Self.motionHistoryMinutes, unwatched) : lookback))
        }
        endDiscoveries(where: { $0.region == region }, at: now, &actions)
    }

    private mutating func manualCheckIn(at site: SiteBeacon, reason: String, time: Date?, now: Date, _ actions: inout [EngineAction]) {
        let what = "manual check-in at \(site) refused"
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return reject("\(what): a reason is required", site: site, now: now, &actions)
        }
        if let problem = manualTimeProblem(time, now: now, notBefore: lastCheckOutAt.map { ($0, "the last check-out") }) {
            return reject("\(what): \(problem)", site: site, now: now, &actions)
        }
        guard let index = siteIndex(site) ?? trackSite(site) else {
            return reject("\(what): not a configured site (known: \(configuredSitesList))", site: site, now: now, &actions)
        }
        mutateSite(index, at: now, &actions) { presence, context, outputs in
            presence.manualCheckIn(at: time ?? now, decidedAt: now, reason: reason, context, &outputs)
        }
    }

    private mutating func manualCheckOut(at site: SiteBeacon?, reason: String, time: Date?, now: Date, _ actions: inout [EngineAction]) {
        let what = "manual check-out\(site.map { " at \($0)" } ?? "") refused"
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return reject("\(what): a reason is required", site: site, now: now, &actions)
        }
        let targets = sites.indices.filter { index in
            sites[index].session != nil && (site == nil || sites[index].site == site)
        }
        guard !targets.isEmpty else {
            return reject("\(what): not checked in", site: site, now: now, &actions)
        }
        let latestCheckIn = targets.compactMap { sites[$0].session?.checkInAt }.max()
        if let problem = manualTimeProblem(time, now: now, notBefore: latestCheckIn.map { ($0, "the check-in") }) {
            return reject("\(what): \(problem)", site: site, now: now, &actions)
        }
        for index in targets {
            mutateSite(index, at: now, &actions) { presence, context, outputs in
                presence.manualCheckOut(at: time ?? now, reason: reason, context, &outputs)
            }
        }
    }

    /// Why the time an employee gave for a manual check-in or check-out cannot be used, if it
    /// cannot: it must have passed, lie within `manualBackdateMaxMinutes`, and not precede `notBefore`.
    private func manualTimeProblem(_ time: Date?, now: Date, notBefore: (time: Date, name: String)?) -> String? {
        guard let time else { return nil }
        let given = "'at' is \(RFC3339.format(time))"
        let maxMinutes = configuration.manualBackdateMaxMinutes
        if time > now { return "\(given); expected a time that has passed (now \(RFC3339.format(now)))" }
        if now.timeIntervalSince(time) > maxMinutes * 60 {
            return "\(given); expected at most \(Int(maxMinutes)) min before now (\(RFC3339.format(now)), manualBackdateMaxMinutes)"
        }
        if let notBefore, time < notBefore.time {
            return "\(given); expected no earlier than \(notBefore.name) at \(RFC3339.format(notBefore.time))"
        }
        return nil
    }

    private mutating func permissionsChanged(to newPermissions: Permissions, at now: Date, _ actions: inout [EngineAction]) {
        let before = permissions.automaticDetectionBlockers
        permissions = newPermissions
        let after = newPermissions.automaticDetectionBlockers
        guard before != after else { return }
        if after.isEmpty {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .detectionRestored, site: nil, detail: "automatic detection available again")))
            actions.append(.monitorRegions(monitoredRegions))
            actions.append(contentsOf: monitoredRegions.map(EngineAction.requestRegionState))
            armArrivalReminders(for: monitoredRegions, &actions)
        } else {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .detectionUnavailable, site: nil, detail: after.joined(separator: "; "))))
            if before.isEmpty { lastPromptAt = nil }
            // iOS would go on showing them on arrival, and the app could no longer withdraw them.
            withdrawArrivalReminders(Set(monitoredRegions.map(\.uuid)), &actions)
            promptForManualCheckInIfNeeded(at: now, &actions)
        }
    }

    private mutating func apply(_ newConfiguration: Configuration, at now: Date, _ actions: inout [EngineAction]) {
        if let error = newConfiguration.validationErrors().first {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .configurationRejected, site: nil, detail: error.description)))
            return
        }
        let armedBefore = Set(arrivalReminderRegions.map(\.uuid))
        configuration = newConfiguration
        // Sites no longer allowed are dropped unless a session is open there: that one ends
        // with its own exit, never silently.
        withdrawArrivalReminders(armedBefore.subtracting(arrivalReminderRegions.map(\.uuid)), &actions)
        let configuration = configuration
        sites.removeAll { !configuration.allows($0.site) && $0.session == nil && !$0.isConfirming }
        trackConfiguredSites()
        actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .configurationApplied, site: nil,
                                                        detail: "\(configuration.sites.count) sites, monitoring \(configuration.regionMonitoring.rawValue)")))
        actions.append(.monitorRegions(monitoredRegions))
        armArrivalReminders(for: monitoredRegions, &actions)
    }

    // MARK: - Settling and reconciling

    /// Settles every decision that is due at `now`, with the times recorded earlier.
    private mutating func settle(at now: Date, _ actions: inout [EngineAction]) {
        guard let due = timerAt, now >= due else { return }
        for index in sites.indices where sites[index].nextDeadline(configuration, after: now).map({ now >= $0 }) ?? false {
            mutateSite(index, at: now, &actions) { site, context, outputs in site.settle(at: now, context, &outputs) }
        }
        let windowSeconds = configuration.rangingWindowMaxSeconds
        endDiscoveries(where: { now >= $0.at.addingTimeInterval(windowSeconds) }, at: now, &actions)
    }

    /// Brings ranging, background time, the motion query and the timer in line with the state.
    private mutating func reconcile(at now: Date, _ actions: inout [EngineAction]) {
        let anyConfirming = sites.contains { $0.isConfirming || $0.isVerifyingExit(at: now, configuration) }
        // A discovery that found its site(s), all of them decided, needs no more ranging.
        if !anyConfirming, discoveries.contains(where: \.foundSite) {
            discoveries.removeAll(where: \.foundSite)
        }
        if anyConfirming || !discoveries.isEmpty || !rangingUUIDs.isEmpty {
            var wanted = Set(discoveries.map(\.region.uuid))
            for site in sites where site.isConfirming || site.isVerifyingExit(at: now, configuration) { wanted.insert(site.site.uuid) }
            let desired = wanted.sorted { $0.uuidString < $1.uuidString }
            if desired != rangingUUIDs {
                if rangingUUIDs.isEmpty, !backgroundTaskActive {
                    backgroundTaskActive = true
                    actions.append(.beginBackgroundTask)
                }
                for uuid in desired where !rangingUUIDs.contains(uuid) { actions.append(.startRanging(BeaconRegion(uuid: uuid))) }
                for uuid in rangingUUIDs where !desired.contains(uuid) { actions.append(.stopRanging(BeaconRegion(uuid: uuid))) }
                if !desired.isEmpty, rangingUUIDs.isEmpty || motionIsStale(at: now) {
                    queryMotionIfStale(at: now, &actions)
                }
                rangingUUIDs = desired
                if desired.isEmpty, backgroundTaskActive {
                    backgroundTaskActive = false
                    actions.append(.endBackgroundTask)
                }
            }
        }
        // Only iOS's own signals (an entry, an inside state) are worth keeping the app running for.
        let iOSSaidSo = sites.contains { $0.confirmingTrigger == .regionEntry || $0.confirmingTrigger == .regionState }
        keepRunningWhileDeciding(iOSSaidSo || !discoveries.isEmpty, at: now, &actions)
        // While deciding with the walking rule waiting for a stop, motion is asked for once a window.
        if configuration.walkingConfirmNeedsStop, anyConfirming, !rangingUUIDs.isEmpty,
           motion.map({ now.timeIntervalSince($0.at) >= configuration.rangingWindowMaxSeconds }) ?? true,
           motionQueriedAt.map({ now.timeIntervalSince($0) >= configuration.rangingWindowMaxSeconds }) ?? true {
            motionQueriedAt = now
            actions.append(.queryMotion(lookbackMinutes: configuration.motionLookbackMinutes))
        }
        var next: Date?
        for site in sites {
            if let deadline = site.nextDeadline(configuration, after: now), next.map({ deadline < $0 }) ?? true { next = deadline }
        }
        for discovery in discoveries {
            let end = discovery.at.addingTimeInterval(configuration.rangingWindowMaxSeconds)
            if next.map({ end < $0 }) ?? true { next = end }
        }
        if next != timerAt {
            actions.append(next.map { .scheduleTimer(.nextDecision, at: $0) } ?? .cancelTimer(.nextDecision))
            timerAt = next
        }
    }

    /// Background location updates while a window decides, within `backgroundLocationMaxSeconds`
    /// of when deciding began, and only with Always access (iOS allows no more).
    private mutating func keepRunningWhileDeciding(_ deciding: Bool, at now: Date, _ actions: inout [EngineAction]) {
        let allowed = deciding && permissions.location == .always && configuration.backgroundLocationMaxSeconds > 0
        if allowed {
            let since = backgroundLocationWantedSince ?? now
            backgroundLocationWantedSince = since
            let within = now.timeIntervalSince(since) < configuration.backgroundLocationMaxSeconds
            if within != backgroundLocationOn {
                backgroundLocationOn = within
                actions.append(within ? .startBackgroundLocation : .stopBackgroundLocation)
            }
        } else {
            if !deciding { backgroundLocationWantedSince = nil }
            if backgroundLocationOn {
                backgroundLocationOn = false
                actions.append(.stopBackgroundLocation)
            }
        }
    }

    private func motionIsStale(at now: Date) -> Bool {
        guard let motion else { return true }
        return now.timeIntervalSince(motion.at) > configuration.rangingWindowMaxSeconds * 4
    }

    private mutating func queryMotionIfStale(at now: Date, _ actions: inout [EngineAction]) {
        guard motionIsStale(at: now),
              motionQueriedAt.map({ now.timeIntervalSince($0) >= configuration.rangingWindowMaxSeconds }) ?? true else { return }
        motionQueriedAt = now
        actions.append(.queryMotion(lookbackMinutes: configuration.motionLookbackMinutes))
    }

    private mutating func endDiscoveries(where shouldEnd: (SitePresence.Discovery) -> Bool, at now: Date, _ actions: inout [EngineAction]) {
        guard !discoveries.isEmpty else { return }
        for discovery in discoveries where shouldEnd(discovery) && !discovery.foundSite {
            actions.append(.recordTelemetry(TelemetryRecord(
                at: now, kind: .discoveryEmpty, site: nil,
                detail: "region \(discovery.region) (\(discovery.trigger.rawValue)) but no beacon of a known site was heard while ranging")))
        }
        discoveries.removeAll(where: shouldEnd)
    }

    private func requestStateOfOpenSessions(_ actions: inout [EngineAction]) {
        let open = sites.filter { $0.session != nil }.map(\.site)
        for region in monitoredRegions where open.contains(where: region.contains) {
            actions.append(.requestRegionState(region))
        }
    }

    /// The app is running: the resume reminders move to 1, 2, … `resumeReminderCount` times
    /// `resumeReminderHours` from now (at most once every 15 minutes). Only with Always access:
    /// without it nothing runs in the background anyway, and the manual prompt covers it.
    private mutating func pushBackResumeReminder(at now: Date, _ actions: inout [EngineAction]) {
        let hours = configuration.resumeReminderHours
        guard hours > 0, permissions.location == .always else { return }
        let due = now.addingTimeInterval(hours * 3_600)
        if let reminderAt, reminderAt > now, due.timeIntervalSince(reminderAt) < Self.reminderPushBackSeconds { return }
        reminderAt = due
        for sequence in 1...max(1, configuration.resumeReminderCount) {
            actions.append(.notify(LocalNotification(
                kind: .resumeReminder, title: "Automatic check-in is paused",
                body: "Beacon Attendance has not run for \(Self.hoursText(hours * Double(sequence))). If you closed it from the app switcher, iPhone won't start it at work. Open it to resume automatic check-in.",
                deliverAt: now.addingTimeInterval(hours * 3_600 * Double(sequence)), sequence: sequence)))
        }
    }

    static let reminderPushBackSeconds: Double = 900
    /// How far back CoreMotion's history goes (the motion coprocessor keeps 7 days).
    static let motionHistoryMinutes: Double = 7 * 24 * 60

    /// The arrival reminders of `regions`' UUIDs, (re)scheduled: iOS holds one per UUID-wide
    /// region (one system region whatever the number of sites; walking from one site to the next
    /// is no new arrival) and shows it on each entry whether or not the app can run. Scheduling it
    /// again withdraws the one shown, so an employee sees it only when the app did not run on
    /// arrival (after a force-quit). Only with Always access, like the resume reminder.
    private func armArrivalReminders(for regions: [BeaconRegion], _ actions: inout [EngineAction]) {
        let armed = Set(arrivalReminderRegions)
        for region in Set(regions.map { BeaconRegion(uuid: $0.uuid) }).sorted() where armed.contains(region) {
            actions.append(.notify(LocalNotification(
                kind: .arrivalReminder, title: "Arrived at work?",
                body: "Beacon Attendance did not start when you arrived, so it has not checked you in. If you closed it from the app switcher, iPhone won't start it at work. Open it to check in.",
                region: region)))
        }
    }

    /// The regions that have an arrival reminder: each monitored UUID's, with Always access and
    /// `arrivalReminders` on.
    private var arrivalReminderRegions: [BeaconRegion] {
        guard configuration.arrivalReminders, permissions.location == .always else { return [] }
        return Set(monitoredRegions.map(\.uuid)).map { BeaconRegion(uuid: $0) }.sorted()
    }

    /// Withdraws the arrival reminders of `uuids` (iOS holds them until told otherwise).
    private func withdrawArrivalReminders(_ uuids: Set<UUID>, _ actions: inout [EngineAction]) {
        for uuid in uuids.sorted(by: { $0.uuidString < $1.uuidString }) {
            actions.append(.withdrawNotification(LocalNotification.identifier(.arrivalReminder, region: BeaconRegion(uuid: uuid))))
        }
    }

    static func hoursText(_ hours: Double) -> String {
        hours.rounded() == hours ? "\(Int(hours)) hour\(hours == 1 ? "" : "s")" : String(format: "%.1f hours", hours)
    }

    private mutating func promptForManualCheckInIfNeeded(at now: Date, _ actions: inout [EngineAction]) {
        let blockers = permissions.automaticDetectionBlockers
        guard !blockers.isEmpty, openSessions.isEmpty,
              lastPromptAt.map({ now.timeIntervalSince($0) >= configuration.manualPromptMinIntervalSeconds }) ?? true else { return }
        lastPromptAt = now
        actions.append(.notify(LocalNotification(
            kind: .manualCheckInPrompt, title: "Check in by hand",
            body: "Automatic check-in can't work right now: \(blockers.joined(separator: "; ")). Open the app to check in, or change this in Settings.")))
    }

    // MARK: - Sites


    private func isWalking(at now: Date) -> Bool {
        guard let motion, now.timeIntervalSince(motion.at) <= configuration.motionLookbackMinutes * 60 else { return false }
        return motion.looksLikeWalking(minSteps: configuration.walkingMinSteps)
    }

    /// On the move by a motion snapshot at most two windows old.
    private func movingNow(at now: Date) -> Bool {
        guard let motion, now.timeIntervalSince(motion.at) <= 2 * configuration.rangingWindowMaxSeconds else { return false }
        return (motion.activity == .walking || motion.activity == .running) && motion.confidence != .low
    }

    /// What the walking rule needs: walking, or (`walkingConfirmNeedsStop`) walked and now
    /// stopped, by a motion snapshot at most two windows old.
    private func walkingRuleHolds(at now: Date) -> Bool {
        guard configuration.walkingConfirmNeedsStop else { return isWalking(at: now) }
        guard let motion, now.timeIntervalSince(motion.at) <= 2 * configuration.rangingWindowMaxSeconds,
              motion.activity == .stationary else { return false }
        return (motion.steps ?? 0) >= configuration.walkingMinSteps || motion.walkingSince != nil
    }

    /// Runs one site's transition and turns what happened into actions.
    private mutating func mutateSite(
        _ index: Int, at now: Date, _ actions: inout [EngineAction],
        _ transition: (inout SitePresence, SitePresence.Context, inout [SitePresence.Output]) -> Void
    ) {
        var outputs: [SitePresence.Output] = []
        let site = sites[index].site
        let neighbours = sites.lazy.filter { $0.site != site && $0.site.uuid == site.uuid }
        let context = SitePresence.Context(configuration: configuration, walking: walkingRuleHolds(at: now),
                                           anotherSiteOpen: neighbours.contains { $0.session != nil },
                                           keptRunning: backgroundLocationOn, movingNow: movingNow(at: now),
                                           neighbourDwellSince: neighbours.compactMap(\.dwellUnderWaySince).min())
        transition(&sites[index], context, &outputs)
        record(outputs, site: site, at: now, &actions)
        for output in outputs {
            guard case .checkedIn(let session, _, _) = output, session.source == .automatic else { continue }
            handOver(to: site, arrival: session.checkInAt, at: now, &actions)
        }
    }

    /// An automatic check-in at `site`: the other sites' sessions end and their windows stop.
    private mutating func handOver(to site: SiteBeacon, arrival: Date, at now: Date, _ actions: inout [EngineAction]) {
        for other in sites.indices where sites[other].site != site && (sites[other].session != nil || sites[other].isConfirming) {
            var outputs: [SitePresence.Output] = []
            let context = SitePresence.Context(configuration: configuration, walking: isWalking(at: now), anotherSiteOpen: true)
            sites[other].arrived(at: site, arrival: arrival, now: now, context, &outputs)
            record(outputs, site: sites[other].site, at: now, &actions)
        }
    }

    /// A site's outputs as actions; a check-out also moves `lastCheckOutAt`.
    private mutating func record(_ outputs: [SitePresence.Output], site: SiteBeacon, at now: Date, _ actions: inout [EngineAction]) {
        for output in outputs {
            if case .checkedOut(_, let time, _, _) = output { lastCheckOutAt = max(lastCheckOutAt ?? time, time) }
            actions.append(contentsOf: self.actions(for: output, site: site, at: now))
        }
    }

    private func actions(for output: SitePresence.Output, site: SiteBeacon, at now: Date) -> [EngineAction] {
        func telemetry(_ kind: TelemetryRecord.Kind, _ detail: String) -> EngineAction {
            .recordTelemetry(TelemetryRecord(at: now, kind: kind, site: site, detail: detail))
        }
        func event(_ kind: AttendanceEvent.Kind, _ session: PresenceSession, at time: Date, source: EventSource, reason: String?,
                   evidence: CheckInEvidence? = nil) -> EngineAction {
            .enqueue(AttendanceEvent(kind: kind, userID: configuration.userID, deviceID: configuration.deviceID, site: site,
                                     sessionKey: session.key, timestamp: time, source: source, reason: reason, evidence: evidence))
        }
        switch output {
        case .windowOpened(let trigger):
            return [telemetry(.windowOpened, "ranging window opened by \(trigger.rawValue)")]
        case .checkedIn(let session, let evidence, let reason):
            let median = evidence.medianRSSI.map { String(format: "%.1f dBm", $0) } ?? "n/a"
            return [event(.checkIn, session, at: session.checkInAt, source: session.source, reason: reason, evidence: evidence),
                    telemetry(.windowConfirmed, "checked in at \(RFC3339.format(session.checkInAt)) by rule \(evidence.rule); \(evidence.sampleCount) samples, median \(median)")]
        case .windowInsufficient(let reason, _):
            return [telemetry(.windowInsufficient, "insufficient: \(reason); will retry at the next opportunity")]
        case .exitSuspected(let session, let cause):
            return [telemetry(.exitSuspected, "\(cause.rawValue); last heard \(RFC3339.format(session.lastHeardAt))")]
        case .resumed(let session, let silence):
            return [telemetry(.sessionResumed, "heard again after \(Int(silence)) s; session \(session.key) continues")]
        case .checkedOut(let session, let time, let source, let reason):
            return [event(.checkOut, session, at: time, source: source, reason: reason),
                    telemetry(.checkedOut, "checked out at \(RFC3339.format(time)) (\(source.rawValue): \(reason))")]
        case .heartbeat(let session, let time):
            return [event(.heartbeat, session, at: time, source: .automatic, reason: nil)]
        case .rejected(let message):
            return [telemetry(.manualRejected, message)]
        }
    }

    private mutating func reject(_ message: String, site: SiteBeacon?, now: Date, _ actions: inout [EngineAction]) {
        actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .manualRejected, site: site, detail: message)))
    }

    private var configuredSitesList: String {
        configuration.sites.isEmpty ? "any major of \(configuration.proximityUUID.uuidString)"
            : configuration.sites.map { $0.beacon(defaultUUID: configuration.proximityUUID).description }.joined(separator: ", ")
    }

    private func siteIndex(_ site: SiteBeacon) -> Int? {
        sites.firstIndex { $0.site.major == site.major && $0.site.uuid == site.uuid }
    }

    /// Starts tracking a site if the configuration allows it; returns its index.
    private mutating func trackSite(_ site: SiteBeacon) -> Int? {
        if let index = siteIndex(site) { return index }
        guard configuration.allows(site) else { return nil }
        let index = sites.firstIndex { site < $0.site } ?? sites.endIndex
        sites.insert(SitePresence(site: site), at: index)
        return index
    }

    private mutating func trackConfiguredSites() {
        for site in configuration.sites { _ = trackSite(site.beacon(defaultUUID: configuration.proximityUUID)) }
    }
}
