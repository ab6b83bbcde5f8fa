import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird

/// The audit log: the ledger's rows, newest first, filtered by actor and time, 200 a page.
extension Console {
    func registerAudit(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "audit",
            use: signedIn("audit", needs: .readAudit) { request, _, viewer, form in
                let before = try form["before"].map { text -> Int64 in
                    guard let id = Int64(text), id > 0 else {
                        throw DomainError.field("before", text, expected: "a row id")
                    }
                    return id
                }
                let zones = Self.readingZones(try await services.repository.sites(), viewer)
                let zone = form["zone"] ?? zones[0]
                guard zones.contains(zone) else {
                    throw DomainError.field("zone", zone, expected: "one of " + zones.joined(separator: ", "))
                }
                let calendarZone = TimeZone(identifier: zone) ?? .gmt
                let from = try form["from"].map { try LocalTime.day("from", $0) }
                let to = try form["to"].map { try LocalTime.day("to", $0) }
                let person = try await personPick(form, viewer, employees: try await services.repository.employees())
                let filter = LedgerFilter(
                    from: from.map { SiteCalendar.start(of: $0, in: calendarZone) },
                    // The whole last day: the filter's end is exclusive.
                    to: to.map { SiteCalendar.start(of: $0.adding(days: 1), in: calendarZone) },
                    actor: form["actor"].map { LedgerActor(rawValue: $0) }, sessionKey: nil,
                    userId: person.selected?.id)
                // The rows are a heavy read: from the standby while it keeps up.
                let reads = services.reads.reading()
                let rows =
                    person.searching
                    ? [] : try await reads.repository.ledgerEvents(filter, before: before, limit: 201)
                let actors = try await ActorNames(services: services, words: viewer.words)
                let witnessed = try await Self.witnessed(services, zone: zone, viewer)
                let warnings = try await reads.repository.ledgerWarnings(limit: 5).map { warning -> [String: Any] in
                    [
                        "at": LocalTime.text(warning.reportedAt, zone: zone, in: viewer.language),
                        "device": warning.deviceId.rawValue, "person": actors.target(warning.userId.rawValue),
                        "problem": warning.problem,
                    ]
                }
                let page = rows.prefix(200).map { entry -> [String: Any] in
                    let record = try? entry.record()
                    return [
                        "id": String(entry.id), "kind": entry.kind.rawValue, "actor": actors(entry.actor),
                        "at": LocalTime.text(entry.receivedAt, zone: zone, in: viewer.language),
                        "target": actors.target(
                            record?.target ?? entry.sessionKey?.rawValue ?? entry.userId?.rawValue ?? ""),
                        "reason": LedgerRows.reason(entry, words: viewer.words),
                        "changes": LedgerRows.changes(entry, zone: zone, in: viewer.language),
                    ]
                }
                // Older rows have smaller ids: the next page starts before the last one shown.
                let pager = Pager(
                    path: "/console/audit",
                    filters: [("actor", form["actor"])] + person.filters + [
                        ("zone", form["zone"]), ("from", form["from"]), ("to", form["to"]),
                    ],
                    form: form, position: "before")
                return self.page(
                    "audit", title: viewer.t("Audit log"), viewer: viewer,
                    person.data(pager, viewer).merging([
                        "rows": Array(page), "empty": page.isEmpty && !person.searching, "hasRows": !page.isEmpty,
                        "pager": pager.data(next: rows.count > 200 ? rows.prefix(200).last.map { String($0.id) } : nil),
                        "filter": [
                            "actor": form["actor"] ?? "", "from": form["from"] ?? "", "to": form["to"] ?? "",
                        ],
                        "zones": zones.map { ["name": $0, "selected": $0 == zone] },
                        "witnessed": !witnessed.isEmpty, "cosignatures": witnessed,
                        "hasWarnings": !warnings.isEmpty, "warnings": warnings,
                    ]) { _, page in page }, readAsOf: reads.asOf)
            })
    }

    /// Each witness's largest cosigned tree against the ledger's newest checkpoint (LEDGER.md,
    /// "Witnesses"): how much of the record someone outside has vouched for.
    static func witnessed(_ services: ConsoleServices, zone: String, _ viewer: Viewer) async throws -> [[String: Any]] {
        let newest = try await services.repository.latestCheckpoint()?.checkpoint.size ?? 0
        let cosignatures = try await services.repository.latestCosignatures()
        return cosignatures.enumerated().map { index, cosignature in
            [
                "witness": cosignature.witness, "size": String(cosignature.treeSize), "of": String(newest),
                "at": LocalTime.text(cosignature.cosignedAt, zone: zone, in: viewer.language),
                "last": index == cosignatures.count - 1,
            ]
        }
    }
}
