import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// Sessions with filters, one session's history, and the corrections: correct, add, void, each
/// with a reason (the same `CorrectionService` as the API).
extension Console {
    func registerSessions(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "sessions",
            use: signedIn("sessions", needs: .readSessions) { request, _, viewer, form in
                return page(
                    "sessions", title: "Sessions", viewer: viewer,
                    try await sessionList(form, viewer))
            })
        console.post(
            "sessions",
            use: signedIn("addSession", needs: .correctSessions) { request, _, viewer, form in
                let site = try await site(SiteID(try form.required("siteId", label: "site")), viewer: viewer)
                let added = try await services.corrections.add(
                    userId: UserID(try form.required("userId", label: "employee")), siteId: site.id,
                    checkInAt: try time(form, "checkInAt", zone: site.timeZone),
                    checkOutAt: try form["checkOutAt"].map { _ in try time(form, "checkOutAt", zone: site.timeZone) },
                    reason: form["reason"] ?? "", actor: viewer.actor)
                return Self.redirect("/console/sessions/\(added.sessionKey.rawValue)?done=added")
            })
        console.get(
            "sessions/:key",
            use: signedIn("session", needs: .readSessions) { request, context, viewer, form in
                let key = SessionKey(try context.parameters.require("key"))
                let done = form["done"].flatMap { Self.sessionNotices[$0] }
                return page(
                    "session", title: "Session", viewer: viewer, try await sessionData(key, viewer), notice: done)
            })
        console.post(
            "sessions/:key/correct",
            use: signedIn("correctSession", needs: .correctSessions) { request, context, viewer, form in
                let key = SessionKey(try context.parameters.require("key"))
                let session = try await services.corrections.session(key, scope: viewer.scope)
                let site = try await site(session.siteId, viewer: viewer)
                // A field left as the page showed it (to the minute) is not a change: the stored time
                // keeps its seconds.
                func changed(_ name: String, _ shown: Date?) throws -> Date? {
                    guard let text = form[name], text != LocalTime.inputValue(shown, zone: site.timeZone) else {
                        return nil
                    }
                    return try time(form, name, zone: site.timeZone)
                }
                _ = try await services.corrections.correct(
                    key, checkInAt: try changed("checkInAt", session.checkInAt),
                    checkOutAt: try changed("checkOutAt", session.checkOutAt), siteId: nil,
                    reason: form["reason"] ?? "",
                    actor: viewer.actor)
                return Self.redirect("/console/sessions/\(key.rawValue)?done=corrected")
            })
        console.post(
            "sessions/:key/void",
            use: signedIn("voidSession", needs: .correctSessions) { request, context, viewer, form in
                let key = SessionKey(try context.parameters.require("key"))
                _ = try await services.corrections.session(key, scope: viewer.scope)
                _ = try await services.corrections.void(key, reason: form["reason"] ?? "", actor: viewer.actor)
                return Self.redirect("/console/sessions/\(key.rawValue)?done=voided")
            })
    }

    static let sessionNotices = [
        "added": "Session added.", "corrected": "Session corrected.", "voided": "Session voided.",
    ]

    private func sessionList(_ query: FormData, _ viewer: Viewer) async throws -> [String: Any] {
        if let site = query["site"] { try viewer.requireSite(SiteID(site)) }
        let sites = try await services.repository.sites().filter { viewer.scope.permits($0.id) }
        let zones = Dictionary(sites.map { ($0.id, $0.timeZone) }, uniquingKeysWith: { first, _ in first })
        let names = Dictionary(
            try await services.repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        // A manager without a site filter sees their sites' sessions: one query per site.
        let siteFilters: [String?] =
            query["site"].map { [$0] } ?? (viewer.scope == .all ? [nil] : sites.map { $0.id.rawValue })
        var sessions: [SessionRecord] = []
        var more = false
        for site in siteFilters {
            let found = try await services.admin.sessions(
                userId: query["user"], siteId: site, from: query["from"].map { $0 + "T00:00:00Z" },
                to: query["to"].map { $0 + "T23:59:59Z" }, limit: 200, cursor: nil)
            sessions += found.items
            more = more || found.nextCursor != nil
        }
        let rows: [[String: Any]] = sessions.sorted { $0.checkInAt > $1.checkInAt }.map { session in
            let zone = zones[session.siteId] ?? "UTC"
            return [
                "key": session.sessionKey.rawValue, "name": names[session.userId] ?? session.userId.rawValue,
                "user": session.userId.rawValue, "site": session.siteId.rawValue,
                "checkIn": LocalTime.text(session.checkInAt, zone: zone),
                "checkOut": LocalTime.text(session.checkOutAt, zone: zone), "status": session.status,
                "corrected": session.corrected,
            ]
        }
        return [
            "rows": rows, "empty": rows.isEmpty, "more": more,
            "filter": [
                "user": query["user"] ?? "", "site": query["site"] ?? "", "from": query["from"] ?? "",
                "to": query["to"] ?? "",
            ],
            "sites": sites.map {
                ["id": $0.id.rawValue, "name": $0.name, "selected": $0.id.rawValue == query["site"]]
            },
            "employees": names.sorted { $0.value < $1.value }.map { ["id": $0.key.rawValue, "name": $0.value] },
            "mayCorrect": viewer.may(.correctSessions),
        ]
    }

    private func sessionData(_ key: SessionKey, _ viewer: Viewer) async throws -> [String: Any] {
        let (session, entries) = try await services.corrections.history(key, scope: viewer.scope)
        let site = try await site(session.siteId, viewer: viewer)
        let employee = try? await services.repository.employee(id: session.userId)
        let actors = try await ActorNames(services: services)
        let history: [[String: Any]] = entries.map { entry in
            return [
                "kind": entry.kind.rawValue, "actor": actors(entry.actor),
                "at": LocalTime.text(entry.receivedAt, zone: site.timeZone),
                "reason": LedgerRows.reason(entry),
            ]
        }
        return [
            "key": key.rawValue, "name": employee?.name ?? session.userId.rawValue, "user": session.userId.rawValue,
            "site": site.name, "zone": site.timeZone, "status": session.status,
            "checkIn": LocalTime.text(session.checkInAt, zone: site.timeZone),
            "checkOut": LocalTime.text(session.checkOutAt, zone: site.timeZone),
            "checkInValue": LocalTime.inputValue(session.checkInAt, zone: site.timeZone),
            "checkOutValue": LocalTime.inputValue(session.checkOutAt, zone: site.timeZone),
            "checkOutReason": session.checkOutReason ?? "", "history": history,
            "mayCorrect": viewer.may(.correctSessions) && session.voidedAt == nil,
        ]
    }

    func site(_ id: SiteID, viewer: Viewer) async throws -> SiteRecord {
        try viewer.requireSite(id)
        return try await services.admin.site(id: id)
    }

    /// A `datetime-local` field read in the site's zone, or a problem naming it.
    func time(_ form: FormData, _ name: String, zone: String) throws -> Date {
        let text = try form.required(name, label: name)
        guard let date = LocalTime.parse(text, zone: zone) else {
            throw DomainError.field(
                name, text, expected: "a date and time YYYY-MM-DDTHH:MM in the site's zone (\(zone))")
        }
        return date
    }
}
