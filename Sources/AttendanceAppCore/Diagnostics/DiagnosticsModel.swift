import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// The Diagnostics screen: what iOS says about each region, what the engine thinks of each site,
/// the outbox and its dead letters, the recent audit log, and the files support asks for.
public struct DiagnosticsModel: Sendable {
    public struct RegionLine: Hashable, Sendable, Identifiable {
        public var id: BeaconRegion
        public var name: String
        /// iOS's last word: inside / outside / unknown / not reported yet.
        public var iOSState: String
        /// The engine's: outside, confirming (n samples), inside since, leaving.
        public var engineState: String
    }

    public struct DeadLetter: Hashable, Sendable, Identifiable {
        public var id: String
        public var summary: String
        public var reason: String
    }

    public var regions: [RegionLine]
    public var outbox: String
    public var deadLetters: [DeadLetter]
    /// Events the server has answered 409 ("still being processed") for over 10 minutes: still
    /// retried, shown here so that a server that needs attention is seen.
    public var stuckOnServer: [DeadLetter]
    /// Newest first, e.g. "08:57:12 windowConfirmed HQ: median −61 dBm over 4 samples".
    public var telemetry: [String]
    public var ranging: String
    /// The phone's check of the server's ledger (its receipts), or the problem it found.
    public var ledger: String
    /// Whether the ledger's check found a problem (shown in red).
    public var ledgerProblem: Bool

    public init(status: DeviceStatus, format: DisplayFormat, telemetryLines: Int = 100) {
        let names = status.siteNames
        regions = status.monitoredRegions.map { region in
            let sites = status.presence.keys.filter(region.contains).sorted()
            let name =
                region.major.map { format.siteName(SiteBeacon(uuid: region.uuid, major: $0), in: names) }
                ?? format.text("All sites of %@", .verbatim(region.uuid.uuidString))
            let engine =
                sites.isEmpty
                ? format.text("outside")
                : sites.map { site in
                    let state = Self.describe(status.presence[site] ?? .outside, format)
                    return sites.count > 1
                        ? format.text("%@: %@", .verbatim(format.siteName(site, in: names)), .verbatim(state))
                        : state
                }
                .joined(separator: "; ")
            return RegionLine(
                id: region, name: name,
                iOSState: status.regionStates[region]?.rawValue ?? format.text("not reported yet"), engineState: engine)
        }
        let counts = status.outbox
        let summary = { (entry: OutboxEntry) in
            format.text(
                "%@ at %@, %@", .verbatim(entry.event.kind.rawValue),
                .verbatim(format.siteName(entry.event.site, in: names)),
                .verbatim(format.dayAndTime(entry.event.timestamp)))
        }
        let attempts = { (entry: OutboxEntry) -> LocalizedText in
            entry.attempts == 1 ? LocalizedText("1 attempt") : LocalizedText("%lld attempts", .count(entry.attempts))
        }
        deadLetters = status.events.filter { $0.state == .dead }.map { entry in
            DeadLetter(
                id: entry.idempotencyKey, summary: summary(entry),
                reason: format.text(
                    "%@ (%@)",
                    entry.lastError.map { LocalizedText.Value.verbatim($0) }
                        ?? .text(LocalizedText("no reason recorded")),
                    .text(attempts(entry))))
        }
        stuckOnServer = status.events.filter { $0.state != .dead && $0.isStuckOnServer(now: status.now) }.map { entry in
            let since = format.dayAndTime(entry.serverBusySince ?? entry.enqueuedAt)
            return DeadLetter(
                id: entry.idempotencyKey, summary: summary(entry),
                reason: format.text(
                    "the server has answered 'still being processed' (409) since %@; retried with backoff (%@). "
                        + "If it lasts, ask your administrator to check the server.", .verbatim(since),
                    .text(attempts(entry))))
        }
        let stuck = stuckOnServer.count
        outbox =
            stuck == 0
            ? format.text(
                "%lld pending, %lld sending, %lld delivered (kept 7 days), %lld refused", .count(counts.pending),
                .count(counts.inFlight), .count(counts.delivered), .count(counts.dead))
            : format.text(
                "%lld pending, %lld sending, %lld delivered (kept 7 days), %lld refused, "
                    + "%lld stuck on the server for over 10 min", .count(counts.pending), .count(counts.inFlight),
                .count(counts.delivered), .count(counts.dead), .count(stuck))
        telemetry = status.telemetry.suffix(telemetryLines).reversed().map { record in
            let site = record.site.map { " " + format.siteName($0, in: names) } ?? ""
            return "\(format.dayAndTime(record.at)) \(record.kind.rawValue)\(site): \(record.detail)"
        }
        ranging = status.isRanging ? format.text("Ranging now") : format.text("Not ranging")
        (ledger, ledgerProblem) = Self.ledger(status.ledger, format)
    }

    static func ledger(_ state: LedgerReceiptState?, _ format: DisplayFormat) -> (String, Bool) {
        guard let state else { return (format.text("No receipts from the server yet"), false) }
        guard let problem = state.problem else {
            return (
                format.text(
                    "%lld receipts checked against the record's checkpoint of %lld rows", .count(state.receipts),
                    .count(Int(state.checkedSize ?? 0))), false
            )
        }
        let when = LocalizedText.Value.verbatim(state.problemAt.map(format.dayAndTime) ?? "")
        if state.problemReported {
            return (
                format.text(
                    "The server's record does not match this phone's receipts: %@ (%@; reported to the server)",
                    .verbatim(problem), when), true
            )
        }
        return (
            format.text(
                "The server's record does not match this phone's receipts: %@ (%@; not reported yet)",
                .verbatim(problem), when), true
        )
    }

    static func describe(_ status: SitePresence.Status, _ format: DisplayFormat) -> String {
        switch status {
        case .outside: format.text("outside")
        case .confirming(let since, let samples):
            format.text("confirming since %@ (%lld samples)", .verbatim(format.time(since)), .count(samples))
        case .inside(let session): format.text("inside since %@", .verbatim(format.time(session.checkInAt)))
        case .leaving(let session, let cause):
            format.text(
                "leaving (%@), last heard %@", .verbatim(cause.rawValue), .verbatim(format.time(session.lastHeardAt)))
        }
    }

    /// The one file the share sheet offers for a field test: the replay trace (`attendance
    /// replay` runs it on any machine), preceded by `#` lines it skips: the device, the app's
    /// version, the engine's configuration (which `attendance replay` then uses) and the audit log,
    /// one JSON object a line. Named with the device and the time of export.
    public static func fieldTestFile(
        _ export: DiagnosticsExport, deviceID: String, appVersion: String?, configuration: Configuration, at time: Date
    ) -> (name: String, contents: String) {
        let stamp = RFC3339.format(time).replacingOccurrences(of: ":", with: "")
        let device = deviceID.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let config = (try? CanonicalJSON.encoder.encode(configuration)).map { String(decoding: $0, as: UTF8.self) }
        var lines = [
            "# Beacon Attendance field test: device \(device), exported \(RFC3339.format(time)), "
                + "app \(appVersion ?? "unknown")",
            "# Replay: attendance replay FILE (it runs the engine with the configuration below); docs/FIELD-TEST.md",
            "\(ReplayTrace.configurationPrefix)\(config ?? "{}")",
        ]
        lines += export.telemetryJSONLines.split(separator: "\n").map { "# log: " + $0 }
        return ("attendance-field-test-\(device)-\(stamp).csv", lines.joined(separator: "\n") + "\n" + export.traceCSV)
    }
}
