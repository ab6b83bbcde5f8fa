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
                let filter = LedgerFilter(
                    from: form["from"].flatMap { LocalTime.parse($0 + "T00:00", zone: "UTC") },
                    to: form["to"].flatMap { LocalTime.parse($0 + "T23:59", zone: "UTC") },
                    actor: form["actor"].map { LedgerActor(rawValue: $0) }, sessionKey: nil, userId: nil)
                let rows = try await services.repository.ledgerEvents(filter, before: before, limit: 201)
                let actors = try await ActorNames(services: services, words: viewer.words)
                let page = rows.prefix(200).map { entry -> [String: Any] in
                    let record = try? entry.record()
                    return [
                        "id": String(entry.id), "kind": entry.kind.rawValue, "actor": actors(entry.actor),
                        "at": LocalTime.text(entry.receivedAt, zone: "UTC", in: viewer.language),
                        "target": record?.target ?? entry.sessionKey?.rawValue ?? entry.userId?.rawValue ?? "",
                        "reason": LedgerRows.reason(entry, words: viewer.words),
                        "changes": LedgerRows.changes(entry, zone: "UTC", in: viewer.language),
                    ]
                }
                // Older rows have smaller ids: the next page starts before the last one shown.
                let pager = Pager(
                    path: "/console/audit",
                    filters: [("actor", form["actor"]), ("from", form["from"]), ("to", form["to"])],
                    form: form, position: "before")
                return self.page(
                    "audit", title: viewer.t("Audit log"), viewer: viewer,
                    [
                        "rows": Array(page), "empty": page.isEmpty,
                        "pager": pager.data(next: rows.count > 200 ? rows.prefix(200).last.map { String($0.id) } : nil),
                        "filter": [
                            "actor": form["actor"] ?? "", "from": form["from"] ?? "", "to": form["to"] ?? "",
                        ],
                    ])
            })
    }
}
