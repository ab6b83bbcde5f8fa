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
                    ["approved": "Request approved.", "rejected": "Request rejected."][$0]
                }
                return page("requests", title: "Requests", viewer: viewer, try await requestData(viewer), notice: done)
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
                let verb = decision == "approve" ? "approved" : "rejected"
                let notice =
                    "\(done) \(done == 1 ? "request" : "requests") \(verb)." + decided.failures("decided")
                return page(
                    "requests", title: "Requests", viewer: viewer, try await requestData(viewer), notice: notice)
            })
        console.post(
            "requests/:id/:decision",
            use: signedIn("decideRequest", needs: .decideRequests) { request, context, viewer, form in
                let id = try context.parameters.require("id")
                let decision = try context.parameters.require("decision")
                guard ["approve", "reject"].contains(decision) else {
                    throw Problem(404, "No such decision", "'\(decision)' is not approve or reject")
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
                "kind": request.kind == .correction ? "correction" : "missing session",
                "site": request.siteId.flatMap { sites[$0]?.name } ?? "",
                "session": request.sessionKey?.rawValue ?? "",
                "checkIn": LocalTime.text(request.checkInAt, zone: zone),
                "checkOut": LocalTime.text(request.checkOutAt, zone: zone), "reason": request.reason,
                "state": request.state.rawValue, "pending": request.state == .pending,
                "comment": request.comment ?? "", "filed": LocalTime.text(request.createdAt, zone: zone),
                "mayDecide": request.state == .pending && viewer.may(.decideRequests),
            ]
        }
        let anyPending = visible.contains { $0.state == .pending }
        return ["rows": rows, "empty": rows.isEmpty, "mayDecideAny": anyPending && viewer.may(.decideRequests)]
    }
}
