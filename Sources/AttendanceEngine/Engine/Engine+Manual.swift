import AttendanceModels
import Foundation

// Check-in and check-out by hand: the reason and the time the employee gave are checked, and a
// refusal says why in the audit log.
extension Engine {
    mutating func manualCheckIn(at site: SiteBeacon, reason: String, time: Date?, now: Date,
                                _ actions: inout [EngineAction]) {
        let what = "manual check-in at \(site) refused"
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return reject("\(what): a reason is required", site: site, now: now, &actions)
        }
        let lastCheckOut: (time: Date, name: String)? = lastCheckOutAt.map { ($0, "the last check-out") }
        if let problem = manualTimeProblem(time, now: now, notBefore: lastCheckOut) {
            return reject("\(what): \(problem)", site: site, now: now, &actions)
        }
        guard let index = siteIndex(site) ?? trackSite(site) else {
            return reject("\(what): not a configured site (known: \(configuredSitesList))", site: site, now: now,
                          &actions)
        }
        mutateSite(index, at: now, &actions) { presence, context, outputs in
            presence.manualCheckIn(at: time ?? now, decidedAt: now, reason: reason, context, &outputs)
        }
    }

    mutating func manualCheckOut(at site: SiteBeacon?, reason: String, time: Date?, now: Date,
                                 _ actions: inout [EngineAction]) {
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
            return "\(given); expected at most \(Int(maxMinutes)) min before now "
                + "(\(RFC3339.format(now)), manualBackdateMaxMinutes)"
        }
        if let notBefore, time < notBefore.time {
            return "\(given); expected no earlier than \(notBefore.name) at \(RFC3339.format(notBefore.time))"
        }
        return nil
    }

    private mutating func reject(_ message: String, site: SiteBeacon?, now: Date, _ actions: inout [EngineAction]) {
        actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .manualRejected, site: site, detail: message)))
    }

    private var configuredSitesList: String {
        configuration.sites.isEmpty ? "any major of \(configuration.proximityUUID.uuidString)"
            : configuration.sites.map { $0.beacon(defaultUUID: configuration.proximityUUID).description }
                .joined(separator: ", ")
    }
}
