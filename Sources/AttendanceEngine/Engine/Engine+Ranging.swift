import AttendanceModels
import Foundation

// iOS's region callbacks and ranged samples: which sites they concern, the UUID-wide regions
// explored by ranging (discoveries), and the motion query that dates a departure.
extension Engine {
    /// How far back CoreMotion's history goes (the motion coprocessor keeps 7 days).
    static let motionHistoryMinutes: Double = 7 * 24 * 60

    mutating func ranged(_ samples: [BeaconSample], in region: BeaconRegion, at now: Date,
                         _ actions: inout [EngineAction]) {
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
                        presence.heard(rssi: strongest, at: now, discovery: discovery, outranked: strongest < loudest,
                                       alongside: others, context, &outputs)
                    }
                } else {
                    mutateSite(index, at: now, &actions) { presence, context, outputs in
                        presence.silent(at: now, neighbourHeard: loudest != 0, context, &outputs)
                    }
                }
            }
            index += 1
        }
    }

    mutating func regionInside(_ region: BeaconRegion, entry: Bool, at now: Date, _ actions: inout [EngineAction]) {
        if let major = region.major {
            let beacon = SiteBeacon(uuid: region.uuid, major: major)
            guard let index = siteIndex(beacon) ?? trackSite(beacon) else { return }
            mutateSite(index, at: now, &actions) { site, context, outputs in
                entry ? site.regionEntered(at: now, context, &outputs)
                    : site.regionStateInside(at: now, context, &outputs)
            }
            return
        }
        // A UUID-wide region: update the sessions it covers, and range to find out which
        // sites are there.
        for index in sites.indices where region.contains(sites[index].site) && sites[index].session != nil {
            mutateSite(index, at: now, &actions) { site, context, outputs in
                entry ? site.regionEntered(at: now, context, &outputs)
                    : site.regionStateInside(at: now, context, &outputs)
            }
        }
        if let existing = discoveries.firstIndex(where: { $0.region == region }) {
            // An entry outranks a state callback: it dates the arrival.
            if entry && discoveries[existing].trigger != .regionEntry {
                discoveries[existing] = SitePresence.Discovery(region: region, trigger: .regionEntry, at: now)
            }
        } else {
            let trigger: RangingWindow.Trigger = entry ? .regionEntry : .regionState
            discoveries.append(SitePresence.Discovery(region: region, trigger: trigger, at: now))
            discoveries.sort { $0.region < $1.region }
        }
    }

    mutating func regionLeft(_ region: BeaconRegion, cause: ExitCause, at now: Date, _ actions: inout [EngineAction]) {
        if region.major != nil, siteIndex(SiteBeacon(uuid: region.uuid, major: region.major!)) == nil {
            return
        }
        var departing = false
        for index in sites.indices where region.contains(sites[index].site) {
            let open = sites[index].session != nil && !sites[index].isLeaving
            mutateSite(index, at: now, &actions) { site, context, outputs in
                site.regionLeft(at: now, cause: cause, context, &outputs)
            }
            departing = departing || (open && sites[index].isLeaving)
        }
        if departing, configuration.departureMotionLookbackMinutes > 0 {
            // Reported long after the site was last heard (the app could not run: force-quit,
            // phone off), the look-back reaches back to that evidence, within CoreMotion's 7 days.
            let lookback = configuration.departureMotionLookbackMinutes
            let lastEvidence = sites.filter { $0.isLeaving && region.contains($0.site) }
                .compactMap { $0.session?.lastHeardAt }.min()
            let unwatched = lastEvidence.map { now.timeIntervalSince($0) / 60 } ?? 0
            let minutes = unwatched > lookback ? min(Self.motionHistoryMinutes, unwatched) : lookback
            actions.append(.queryMotion(lookbackMinutes: minutes))
        }
        endDiscoveries(where: { $0.region == region }, at: now, &actions)
    }

    mutating func endDiscoveries(where shouldEnd: (SitePresence.Discovery) -> Bool, at now: Date,
                                 _ actions: inout [EngineAction]) {
        guard !discoveries.isEmpty else { return }
        for discovery in discoveries where shouldEnd(discovery) && !discovery.foundSite {
            actions.append(.recordTelemetry(TelemetryRecord(
                at: now, kind: .discoveryEmpty, site: nil,
                detail: "region \(discovery.region) (\(discovery.trigger.rawValue)) "
                    + "but no beacon of a known site was heard while ranging")))
        }
        discoveries.removeAll(where: shouldEnd)
    }

    func requestStateOfOpenSessions(_ actions: inout [EngineAction]) {
        let open = sites.filter { $0.session != nil }.map(\.site)
        for region in monitoredRegions where open.contains(where: region.contains) {
            actions.append(.requestRegionState(region))
        }
    }
}
