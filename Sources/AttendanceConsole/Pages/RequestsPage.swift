import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird

/// Employees' correction requests: approve or reject with a comment (`RequestService`).
extension Console {
    func registerRequests(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "requests",
            use: signedIn("requests", needs: .readRequests) { request, _, viewer, form in
                let done = form["done"].flatMap {
                    ["approved": viewer.t("Request approved."), "rejected": viewer.t("Request rejected.")][$0]
                }
                return page(
                    "requests", title: viewer.t("Requests"), viewer: viewer, try await requestData(viewer, form),
                    notice: done)
            })
        console.post(
            "requests/bulk",
            use: signedIn("decideRequests", needs: .decideRequests) { _, _, viewer, form in
                let decision = try form.required("decision", label: "decision")
                guard ["approve", "reject"].contains(decision) else {
                    throw DomainError.field("decision", decision, expected: "approve or reject")
                }
                // One that can't be decided (decided meanwhile, another site) is named.
                let decided = try await Bulk.each(try form.ticked("request"), name: { $0 }) { id in
                    try await services.requests.decide(
                        id: CorrectionRequestID(id), approve: decision == "approve", comment: form["comment"],
                        actor: viewer.actor, scope: viewer.scope)
                }
                let done = decided.done.count
                let notice =
                    (decision == "approve"
                        ? viewer.tp("%lld requests approved.", count: done)
                        : viewer.tp("%lld requests rejected.", count: done))
                    + decided.failures { viewer.t("Not decided: %@", $0) }
                return page(
                    "requests", title: viewer.t("Requests"), viewer: viewer,
                    try await requestData(viewer, FormData("")), notice: notice)
            })
        console.post(
            "requests/:id/:decision",
            use: signedIn("decideRequest", needs: .decideRequests) { request, context, viewer, form in
                let id = try context.parameters.require("id")
                let decision = try context.parameters.require("decision")
                guard ["approve", "reject"].contains(decision) else {
                    throw Problem(404, "No such decision", viewer.t("'%@' is not approve or reject", decision))
                }
                return try await formAction(
                    decision + "-form", row: id, template: "requests", title: viewer.t("Requests"), viewer: viewer,
                    sent: form,
                    data: { try await requestData(viewer, FormData("")) }
                ) {
                    _ = try await services.requests.decide(
                        id: CorrectionRequestID(id), approve: decision == "approve", comment: form["comment"],
                        actor: viewer.actor, scope: viewer.scope)
                    return Self.redirect("/console/requests?done=\(decision == "approve" ? "approved" : "rejected")")
                }
            })
    }

    static let requestPageSize = 100

    /// A page of the requests: pending ones unless `state` says otherwise (`all`, `approved`,
    /// `rejected`), one person's when chosen (`PersonPick`), newest first.
    private func requestData(_ viewer: Viewer, _ form: FormData) async throws -> [String: Any] {
        let stateName = form["state"] ?? "pending"
        let state: CorrectionRequestRecord.State?
        if stateName == "all" {
            state = nil
        } else if let chosen = CorrectionRequestRecord.State(rawValue: stateName) {
            state = chosen
        } else {
            throw DomainError.field("state", stateName, expected: "pending, approved, rejected or all")
        }
        let before = try form["before"].map { token in
            guard let cursor = RequestCursor(token: token) else {
                throw DomainError.field("before", token, expected: "a position from this page's links")
            }
            return cursor
        }
        let sites = Dictionary(
            try await services.repository.sites().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let employees = try await services.repository.employees()
        let names = Dictionary(employees.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let person = try await personPick(form, viewer, employees: employees)
        let pager = Pager(
            path: "/console/requests", filters: [("state", form["state"])] + person.filters, form: form,
            position: "before")
        var found: (items: [CorrectionRequestRecord], next: RequestCursor?) = ([], nil)
        if !person.searching {
            found = try await services.requests.page(
                userId: person.selected?.id, state: state, scope: viewer.scope, before: before,
                limit: Self.requestPageSize)
        }
        let rows: [[String: Any]] = found.items.map { request in
            let zone = request.siteId.flatMap { sites[$0]?.timeZone } ?? "UTC"
            return [
                "id": request.id.rawValue, "name": names[request.userId] ?? request.userId.rawValue,
                "kind": request.kind == .correction ? viewer.t("correction") : viewer.t("missing session"),
                "site": request.siteId.flatMap { sites[$0]?.name } ?? "",
                "session": request.sessionKey?.rawValue ?? "",
                "checkIn": LocalTime.text(request.checkInAt, zone: zone, in: viewer.language),
                "checkOut": LocalTime.text(request.checkOutAt, zone: zone, in: viewer.language),
                "reason": request.reason, "state": Self.requestStateText(request.state, viewer),
                "pending": request.state == .pending, "comment": request.comment ?? "",
                "filed": LocalTime.text(request.createdAt, zone: zone, in: viewer.language),
                "mayDecide": request.state == .pending && viewer.may(.decideRequests),
            ]
        }
        let anyPending = found.items.contains { $0.state == .pending }
        return person.data(pager, viewer).merging([
            "rows": rows, "hasRows": !rows.isEmpty, "empty": rows.isEmpty && !person.searching,
            "mayDecideAny": anyPending && viewer.may(.decideRequests), "pager": pager.data(next: found.next?.token),
            "states": ["pending", "approved", "rejected", "all"].map { name in
                [
                    "value": name, "selected": name == stateName,
                    "label": CorrectionRequestRecord.State(rawValue: name).map { Self.requestStateText($0, viewer) }
                        ?? viewer.t("all"),
                ] as [String: Any]
            },
        ]) { _, page in page }
    }

    /// A request's state as the viewer reads it.
    static func requestStateText(_ state: CorrectionRequestRecord.State, _ viewer: Viewer) -> String {
        switch state {
        case .pending: viewer.t("pending")
        case .approved: viewer.t("approved")
        case .rejected: viewer.t("rejected")
        }
    }
}
