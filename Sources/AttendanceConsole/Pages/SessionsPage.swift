import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird

/// Sessions with filters, one session's history, and the corrections: correct, add, void, each
/// with a reason (the same `CorrectionService` as the API).
extension Console {
    func registerSessions(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "sessions",
            use: signedIn("sessions", needs: .readSessions) { request, _, viewer, form in
                // The list is a heavy read: from the standby while it keeps up.
                let reads = services.reads.reading()
                return page(
                    "sessions", title: viewer.t("Sessions"), viewer: viewer,
                    try await sessionList(form, viewer, from: reads.repository), readAsOf: reads.asOf)
            })
        console.post(
            "sessions",
            use: signedIn("addSession", needs: .correctSessions) { request, _, viewer, form in
                // Refused: the person's sessions again (at the site chosen), the form as it was sent.
                let shown = ["user": form["userId"], "site": form["siteId"]].compactMap { name, value in
                    value.map { name + "=" + Pager.encoded($0) }
                }
                return try await formAction(
                    "add-session", template: "sessions", title: viewer.t("Sessions"), viewer: viewer, sent: form,
                    data: { try await sessionList(FormData(shown.sorted().joined(separator: "&")), viewer) }
                ) {
                    let site = try await site(SiteID(try form.required("siteId", label: "site")), viewer: viewer)
                    let added = try await services.corrections.add(
                        userId: UserID(try form.required("userId", label: "employee")), siteId: site.id,
                        checkInAt: try time(form, "checkInAt", zone: site.timeZone, viewer: viewer),
                        checkOutAt: try form["checkOutAt"].map { _ in
                            try time(form, "checkOutAt", zone: site.timeZone, viewer: viewer)
                        },
                        reason: form["reason"] ?? "", actor: viewer.actor, formKey: form["formKey"])
                    // A day payroll has locked keeps its locked rows: say so, and where the change shows.
                    let day = SiteCalendar.date(of: added.checkInAt, in: TimeZone(identifier: site.timeZone) ?? .gmt)
                    let locked = try await services.payPeriods.periods(from: day, through: day).contains {
                        $0.state == .locked
                    }
                    return Self.redirect(
                        "/console/sessions/\(added.sessionKey.rawValue)?done=\(locked ? "addedLocked" : "added")")
                }
            })
        console.get(
            "sessions/:key",
            use: signedIn("session", needs: .readSessions) { request, context, viewer, form in
                let key = SessionKey(try context.parameters.require("key"))
                let done = form["done"].flatMap { Self.sessionNotice($0, viewer) }
                return page(
                    "session", title: viewer.t("Session"), viewer: viewer, try await sessionData(key, viewer),
                    notice: done)
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
                    return try time(form, name, zone: site.timeZone, viewer: viewer)
                }
                return try await formAction(
                    "correct", template: "session", title: viewer.t("Session"), viewer: viewer, sent: form,
                    data: { try await sessionData(key, viewer) }
                ) {
                    _ = try await services.corrections.correct(
                        key, checkInAt: try changed("checkInAt", session.checkInAt),
                        checkOutAt: try changed("checkOutAt", session.checkOutAt), siteId: nil,
                        reason: form["reason"] ?? "", actor: viewer.actor)
                    return Self.redirect("/console/sessions/\(key.rawValue)?done=corrected")
                }
            })
        console.post(
            "sessions/:key/void",
            use: signedIn("voidSession", needs: .correctSessions) { request, context, viewer, form in
                let key = SessionKey(try context.parameters.require("key"))
                _ = try await services.corrections.session(key, scope: viewer.scope)
                return try await formAction(
                    "void", template: "session", title: viewer.t("Session"), viewer: viewer, sent: form,
                    data: { try await sessionData(key, viewer) }
                ) {
                    _ = try await services.corrections.void(key, reason: form["reason"] ?? "", actor: viewer.actor)
                    return Self.redirect("/console/sessions/\(key.rawValue)?done=voided")
                }
            })
    }

    /// The notice after an action (`?done=`), in the viewer's language.
    static func sessionNotice(_ done: String, _ viewer: Viewer) -> String? {
        switch done {
        case "added": viewer.t("Session added.")
        case "corrected": viewer.t("Session corrected.")
        case "voided": viewer.t("Session voided.")
        case "addedLocked":
            viewer.t("Session added.") + " "
                + viewer.t(
                    "Its day is in a locked pay period: the locked timesheet keeps its rows, and %@",
                    viewer.t(
                        "this session shows under %@, until the period is reopened.",
                        viewer.t("Exceptions") + ", " + viewer.t("Changes after a locked period")))
        default: nil
        }
    }

    static let sessionPageSize = 100

    private func sessionList(
        _ form: FormData, _ viewer: Viewer, from store: (any ServerRepository)? = nil
    ) async throws -> [String: Any] {
        if let site = form["site"] { try viewer.requireSite(SiteID(site)) }
        let inScope = try await services.repository.sites().filter { viewer.scope.permits($0.id) }
        let shown = form["site"].map { id in inScope.filter { $0.id.rawValue == id } } ?? inScope
        let siteNames = Dictionary(inScope.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let employees = try await services.repository.employees()
        let byId = Dictionary(employees.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let from = try form["from"].map { try LocalTime.day("from", $0) }
        let to = try form["to"].map { try LocalTime.day("to", $0) }
        if let from, let to, to < from {
            throw Problem(
                400, "Invalid request",
                viewer.t("'to' is '%@'; expected a day on or after 'from' (%@)", to.description, from.description))
        }
        let person = try await personPick(form, viewer, employees: employees)
        let selected = person.selected
        let searching = person.searching
        let pager = Pager(
            path: "/console/sessions",
            filters: person.filters + [("site", form["site"]), ("from", form["from"]), ("to", form["to"])],
            form: form)
        var sessions: [SessionRecord] = []
        var more = false
        if !searching {
            // Each site's days are its own: one query per site when days are asked for or the viewer
            // sees only some sites; the pages merge newest first.
            let perSite = from != nil || to != nil || form["site"] != nil || viewer.scope != .all
            for site in perSite ? shown.map(Optional.some) : [nil] {
                let zone = TimeZone(identifier: site?.timeZone ?? "UTC") ?? .gmt
                let found = try await services.admin.sessions(
                    userId: selected?.id.rawValue, siteId: site?.id.rawValue,
                    from: from.map { RFC3339.format(SiteCalendar.start(of: $0, in: zone)) },
                    to: to.map { RFC3339.format(SiteCalendar.start(of: $0.adding(days: 1), in: zone)) },
                    limit: Self.sessionPageSize, cursor: form["after"], newestFirst: true, in: store)
                sessions += found.items
                more = more || found.nextCursor != nil
            }
        }
        sessions.sort { a, b in
            a.checkInAt != b.checkInAt
                ? a.checkInAt > b.checkInAt
                : Array(a.sessionKey.rawValue.utf8).lexicographicallyPrecedes(
                    Array(b.sessionKey.rawValue.utf8)) == false
        }
        let page = Array(sessions.prefix(Self.sessionPageSize))
        more = more || sessions.count > Self.sessionPageSize
        let rows: [[String: Any]] = page.map { session in
            let site = siteNames[session.siteId]
            let zone = site?.timeZone ?? "UTC"
            return [
                "key": session.sessionKey.rawValue, "name": byId[session.userId]?.name ?? session.userId.rawValue,
                "user": session.userId.rawValue, "site": site?.name ?? session.siteId.rawValue,
                "checkIn": LocalTime.text(session.checkInAt, zone: zone, in: viewer.language),
                "checkOut": LocalTime.text(session.checkOutAt, zone: zone, in: viewer.language),
                "open": session.checkOutAt == nil, "status": Self.statusLabel(session.status, viewer),
                "corrected": session.corrected,
            ]
        }
        let next =
            more ? page.last.map { SessionCursor(checkInAt: $0.checkInAt, sessionKey: $0.sessionKey).token } : nil
        return person.data(pager, viewer).merging([
            "rows": rows, "hasRows": !rows.isEmpty, "empty": rows.isEmpty && !searching,
            "pager": pager.data(next: next),
            "filter": ["from": form["from"] ?? "", "to": form["to"] ?? ""],
            "sites": inScope.map {
                ["id": $0.id.rawValue, "name": $0.name, "selected": $0.id.rawValue == form["site"]]
            },
            "mayCorrect": viewer.may(.correctSessions),
        ]) { _, page in page }
    }

    private func sessionData(_ key: SessionKey, _ viewer: Viewer) async throws -> [String: Any] {
        let (session, entries) = try await services.corrections.history(key, scope: viewer.scope)
        let site = try await site(session.siteId, viewer: viewer)
        let employee = try? await services.repository.employee(id: session.userId)
        let actors = try await ActorNames(services: services, words: viewer.words)
        let history: [[String: Any]] = entries.map { entry in
            let (at, received) = LedgerRows.happenedAt(entry)
            return [
                "kind": entry.kind.rawValue, "actor": actors(entry.actor),
                "at": LocalTime.text(at, zone: site.timeZone, in: viewer.language),
                "received": received.map { LocalTime.text($0, zone: site.timeZone, in: viewer.language) } ?? "",
                "reason": LedgerRows.reason(entry, words: viewer.words),
                "changes": LedgerRows.changes(entry, zone: site.timeZone, in: viewer.language),
            ]
        }
        return [
            "key": key.rawValue, "name": employee?.name ?? session.userId.rawValue, "user": session.userId.rawValue,
            "site": site.name, "zone": site.timeZone, "status": Self.statusLabel(session.status, viewer),
            "checkIn": LocalTime.text(session.checkInAt, zone: site.timeZone, in: viewer.language),
            "checkOut": LocalTime.text(session.checkOutAt, zone: site.timeZone, in: viewer.language),
            "checkInValue": LocalTime.inputValue(session.checkInAt, zone: site.timeZone),
            "checkOutValue": LocalTime.inputValue(session.checkOutAt, zone: site.timeZone),
            "checkOutReason": session.checkOutReason ?? "", "history": history,
            "mayCorrect": viewer.may(.correctSessions) && session.voidedAt == nil,
        ]
    }

    /// A session's status (`SessionRecord.status`) as the page shows it.
    static func statusLabel(_ status: String, _ viewer: Viewer) -> String {
        switch status {
        case "open": viewer.t("open")
        case "closed": viewer.t("closed")
        case "voided": viewer.t("voided")
        default: status
        }
    }

    func site(_ id: SiteID, viewer: Viewer) async throws -> SiteRecord {
        try viewer.requireSite(id)
        return try await services.admin.site(id: id)
    }

    /// A `datetime-local` field read in the site's zone, or a problem naming it (in the viewer's
    /// language when there is one).
    func time(_ form: FormData, _ name: String, zone: String, viewer: Viewer? = nil) throws -> Date {
        let text = try form.required(name, label: name)
        guard let date = LocalTime.parse(text, zone: zone) else {
            guard let viewer else {
                throw DomainError.field(
                    name, text, expected: "a date and time YYYY-MM-DDTHH:MM in the site's zone (\(zone))")
            }
            throw Problem(
                400, "Invalid request",
                viewer.t(
                    "'%@' is '%@'; expected a date and time YYYY-MM-DDTHH:MM in the site's zone (%@)",
                    name, text, zone))
        }
        return date
    }
}
