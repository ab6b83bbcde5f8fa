import AttendanceModels
import Foundation

// The tracked sites: which are tracked, one site's transition with the facts it decides on
// (motion, its neighbours), the hand-over when another site checks in, and a site's outputs
// turned into actions (outbox events and audit lines).
extension Engine {
    func siteIndex(_ site: SiteBeacon) -> Int? {
        sites.firstIndex { $0.site.major == site.major && $0.site.uuid == site.uuid }
    }

    /// Starts tracking a site if the configuration allows it; returns its index.
    mutating func trackSite(_ site: SiteBeacon) -> Int? {
        if let index = siteIndex(site) { return index }
        guard configuration.allows(site) else { return nil }
        let index = sites.firstIndex { site < $0.site } ?? sites.endIndex
        sites.insert(SitePresence(site: site), at: index)
        return index
    }

    mutating func trackConfiguredSites() {
        for site in configuration.sites { _ = trackSite(site.beacon(defaultUUID: configuration.proximityUUID)) }
    }

    /// Runs one site's transition and turns what happened into actions.
    mutating func mutateSite(
        _ index: Int, at now: Date, _ actions: inout [EngineAction],
        _ transition: (inout SitePresence, SitePresence.Context, inout [SitePresence.Output]) -> Void
    ) {
        var outputs: [SitePresence.Output] = []
        let site = sites[index].site
        let neighbours = sites.lazy.filter { $0.site != site && $0.site.uuid == site.uuid }
        let checkedInNextDoor = neighbours.contains { $0.session != nil && !$0.isLeaving }
        let context = SitePresence.Context(configuration: configuration, walking: walkingRuleHolds(at: now),
                                           anotherSiteOpen: neighbours.contains { $0.session != nil },
                                           anotherSiteInside: checkedInNextDoor,
                                           keptRunning: backgroundLocationOn, movingNow: movingNow(at: now),
                                           neighbourDwellSince: neighbours.compactMap(\.dwellUnderWaySince).min(),
                                           newestUsualDeskNextDoor: neighbours.compactMap(\.usualDesk?.learntAt).max())
        transition(&sites[index], context, &outputs)
        record(outputs, site: site, at: now, &actions)
        for output in outputs {
            guard case .checkedIn(let session, _, _) = output, session.source == .automatic else { continue }
            handOver(to: site, arrival: session.checkInAt, at: now, &actions)
        }
    }

    // MARK: - Motion, as a decision sees it

    private func isWalking(at now: Date) -> Bool {
        guard let motion, now.timeIntervalSince(motion.at) <= configuration.motionLookbackMinutes * 60 else {
            return false
        }
        return motion.looksLikeWalking(minSteps: configuration.walkingMinSteps)
    }

    /// On the move by a motion snapshot at most two windows old.
    private func movingNow(at now: Date) -> Bool {
        guard let motion, now.timeIntervalSince(motion.at) <= 2 * configuration.rangingWindowMaxSeconds else {
            return false
        }
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

    // MARK: - Outputs

    /// An automatic check-in at `site`: the other sites' sessions end and their windows stop.
    private mutating func handOver(to site: SiteBeacon, arrival: Date, at now: Date, _ actions: inout [EngineAction]) {
        for other in sites.indices
        where sites[other].site != site && (sites[other].session != nil || sites[other].isConfirming) {
            var outputs: [SitePresence.Output] = []
            let context = SitePresence.Context(configuration: configuration, walking: isWalking(at: now),
                                               anotherSiteOpen: true)
            sites[other].arrived(at: site, arrival: arrival, now: now, context, &outputs)
            record(outputs, site: sites[other].site, at: now, &actions)
        }
    }

    /// A site's outputs as actions; a check-out also moves `lastCheckOutAt`.
    private mutating func record(_ outputs: [SitePresence.Output], site: SiteBeacon, at now: Date,
                                 _ actions: inout [EngineAction]) {
        for output in outputs {
            if case .checkedOut(_, let time, _, _) = output { lastCheckOutAt = max(lastCheckOutAt ?? time, time) }
            actions.append(contentsOf: self.actions(for: output, site: site, at: now))
        }
    }

    private func actions(for output: SitePresence.Output, site: SiteBeacon, at now: Date) -> [EngineAction] {
        func telemetry(_ kind: TelemetryRecord.Kind, _ detail: String) -> EngineAction {
            .recordTelemetry(TelemetryRecord(at: now, kind: kind, site: site, detail: detail))
        }
        func event(_ kind: AttendanceEvent.Kind, _ session: PresenceSession, at time: Date, source: EventSource,
                   reason: String?, evidence: CheckInEvidence? = nil) -> EngineAction {
            .enqueue(AttendanceEvent(kind: kind, userID: configuration.userID, deviceID: configuration.deviceID,
                                     site: site, sessionKey: session.key, timestamp: time, source: source,
                                     reason: reason, evidence: evidence))
        }
        switch output {
        case .windowOpened(let trigger):
            return [telemetry(.windowOpened, "ranging window opened by \(trigger.rawValue)")]
        case .checkedIn(let session, let evidence, let reason):
            let median = evidence.medianRSSI.map { String(format: "%.1f dBm", $0) } ?? "n/a"
            let detail = "checked in at \(RFC3339.format(session.checkInAt)) by rule \(evidence.rule); "
                + "\(evidence.sampleCount) samples, median \(median)"
            return [event(.checkIn, session, at: session.checkInAt, source: session.source, reason: reason,
                          evidence: evidence),
                    telemetry(.windowConfirmed, detail)]
        case .windowInsufficient(let reason, _):
            return [telemetry(.windowInsufficient, "insufficient: \(reason); will retry at the next opportunity")]
        case .exitSuspected(let session, let cause):
            return [telemetry(.exitSuspected, "\(cause.rawValue); last heard \(RFC3339.format(session.lastHeardAt))")]
        case .resumed(let session, let silence):
            let detail = "heard again after \(Int(silence)) s; session \(session.key) continues"
            return [telemetry(.sessionResumed, detail)]
        case .stayed(let session):
            let detail = "no walk since last heard at \(RFC3339.format(session.lastHeardAt)) (motion history): still on site; "
                + "session \(session.key) continues"
            return [telemetry(.sessionResumed, detail)]
        case .checkedOut(let session, let time, let source, let reason):
            return [event(.checkOut, session, at: time, source: source, reason: reason),
                    telemetry(.checkedOut, "checked out at \(RFC3339.format(time)) (\(source.rawValue): \(reason))")]
        case .heartbeat(let session, let time):
            return [event(.heartbeat, session, at: time, source: .automatic, reason: nil)]
        case .rejected(let message):
            return [telemetry(.manualRejected, message)]
        }
    }
}
