import AttendanceModels
import AttendanceRules
import AttendanceServer
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
                    "requests", title: viewer.t("Requests"), viewer: viewer, try await requestData(viewer),
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
                    "requests", title: viewer.t("Requests"), viewer: viewer, try await requestData(viewer),
                    notice: notice)
            })
        console.post(
            "requests/:id/:decision",
            use: signedIn("decideRequest", needs: .decideRequests) { request, context, viewer, form in
                let id = try context.parameters.require("id")
                let decision = try context.parameters.require("decision")
                guard ["approve", "reject"].contains(decision) else {
                    throw Problem(404, "No such decision", viewer.t("'%@' is not approve or reject", decision))
                }
                _ = try await services.requests.decide(
                    id: CorrectionRequestID(id), approve: decision == "approve", comment: form["comment"],
                    actor: viewer.actor,
                    scope: viewer.scope)
                return Self.redirect("/console/requests?done=\(decision == "approve" ? "approved" : "rejected")")
            })
    }

    private func requestData(_ viewer: Viewer) async throws -> [String: Any] {
        let sites = Dictionary(
            try await services.repository.sites().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let names = Dictionary(
            try await services.repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let visible = try await services.requests.list(userId: nil, state: nil, scope: viewer.scope)
        let rows: [[String: Any]] = visible.sorted {
            ($0.state == .pending ? 0 : 1, $1.createdAt) < ($1.state == .pending ? 0 : 1, $0.createdAt)
        }
        .map { request in
            let zone = request.siteId.flatMap { sites[$0]?.timeZone } ?? "UTC"
            return [
                "id": request.id, "name": names[request.userId] ?? request.userId.rawValue,
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
        let anyPending = visible.contains { $0.state == .pending }
        return ["rows": rows, "empty": rows.isEmpty, "mayDecideAny": anyPending && viewer.may(.decideRequests)]
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
