import AttendanceModels
import Foundation

// Before and after every event: the decisions that are due are settled, and ranging, background
// time, background location (keeping the app running while it decides), the motion query and the
// decision timer are brought in line with the state.
extension Engine {
    /// Settles every decision that is due at `now`, with the times recorded earlier.
    mutating func settle(at now: Date, _ actions: inout [EngineAction]) {
        guard let due = timerAt, now >= due else { return }
        for index in sites.indices
        where sites[index].nextDeadline(configuration, after: now).map({ now >= $0 }) ?? false {
            mutateSite(index, at: now, &actions) { site, context, outputs in site.settle(at: now, context, &outputs) }
        }
        let windowSeconds = configuration.rangingWindowMaxSeconds
        endDiscoveries(where: { now >= $0.at.addingTimeInterval(windowSeconds) }, at: now, &actions)
    }

    /// Brings ranging, background time, the motion query and the timer in line with the state.
    mutating func reconcile(at now: Date, _ actions: inout [EngineAction]) {
        let anyConfirming = sites.contains {
            $0.isConfirming || $0.isVerifyingExit(at: now, configuration) || $0.isCheckingStay(at: now)
        }
        // A discovery that found its site(s), all of them decided, needs no more ranging.
        if !anyConfirming, discoveries.contains(where: \.foundSite) {
            discoveries.removeAll(where: \.foundSite)
        }
        if anyConfirming || !discoveries.isEmpty || !rangingUUIDs.isEmpty {
            var wanted = Set(discoveries.map(\.region.uuid))
            for site in sites
            where site.isConfirming || site.isVerifyingExit(at: now, configuration) || site.isCheckingStay(at: now) {
                wanted.insert(site.site.uuid)
            }
            let desired = wanted.sorted { $0.uuidString < $1.uuidString }
            if desired != rangingUUIDs {
                if rangingUUIDs.isEmpty, !backgroundTaskActive {
                    backgroundTaskActive = true
                    actions.append(.beginBackgroundTask)
                }
                for uuid in desired where !rangingUUIDs.contains(uuid) {
                    actions.append(.startRanging(BeaconRegion(uuid: uuid)))
                }
                for uuid in rangingUUIDs where !desired.contains(uuid) {
                    actions.append(.stopRanging(BeaconRegion(uuid: uuid)))
                }
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
            if let deadline = site.nextDeadline(configuration, after: now), next.map({ deadline < $0 }) ?? true {
                next = deadline
            }
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
              motionQueriedAt.map({ now.timeIntervalSince($0) >= configuration.rangingWindowMaxSeconds }) ?? true
        else { return }
        motionQueriedAt = now
        actions.append(.queryMotion(lookbackMinutes: configuration.motionLookbackMinutes))
    }
}
