import AttendanceModels
import AttendanceServer
import Foundation
import Hummingbird

/// People (add, edit, deactivate, enrollment codes) and their devices (last seen, revoke).
extension Console {
    func registerPeople(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "people",
            use: signedIn("people", needs: .readDirectory) { request, _, viewer, form in
                let done = form["done"].flatMap {
                    [
                        "added": "Person added.", "saved": "Changes saved.",
                        "deactivated": "Person deactivated; their devices are revoked.",
                    ][$0]
                }
                return page("people", title: "People", viewer: viewer, try await peopleData(viewer), notice: done)
            })
        console.post(
            "people",
            use: signedIn("createEmployee", needs: .managePeople) { request, _, viewer, form in
                _ = try await services.admin.createEmployee(
                    name: form["name"] ?? "", externalId: form["externalId"], email: form["email"], actor: viewer.actor)
                return Self.redirect("/console/people?done=added")
            })
        console.post(
            "people/:id/edit",
            use: signedIn("updateEmployee", needs: .managePeople) { request, context, viewer, form in
                _ = try await services.admin.updateEmployee(
                    id: UserID(try context.parameters.require("id")), name: form["name"] ?? "",
                    externalId: form["externalId"],
                    email: form["email"], actor: viewer.actor)
                return Self.redirect("/console/people?done=saved")
            })
        console.post(
            "people/:id/deactivate",
            use: signedIn("deactivateEmployee", needs: .managePeople) { _, context, viewer, form in
                _ = try await services.admin.deactivateEmployee(
                    id: UserID(try context.parameters.require("id")), actor: viewer.actor)
                return Self.redirect("/console/people?done=deactivated")
            })
        console.post(
            "people/:id/enrollment-code",
            use: signedIn("createEnrollmentCode", needs: .managePeople) { _, context, viewer, form in
                let user = UserID(try context.parameters.require("id"))
                let issued = try await services.auth.issueEnrollmentCode(for: user, actor: viewer.actor)
                var data = try await peopleData(viewer)
                data["code"] = [
                    "user": user.rawValue, "code": issued.code,
                    "expires": LocalTime.text(issued.expiresAt, zone: "UTC"),
                ]
                return page(
                    "people", title: "People", viewer: viewer, data, notice: "Enrollment code issued (shown once).")
            })
        console.get(
            "devices",
            use: signedIn("devices", needs: .readDirectory) { request, _, viewer, form in
                let done = form["done"] == "revoked" ? "Device revoked." : nil
                return page("devices", title: "Devices", viewer: viewer, try await deviceData(viewer), notice: done)
            })
        console.post(
            "devices/:id/revoke",
            use: signedIn("revokeDevice", needs: .managePeople) { _, context, viewer, form in
                _ = try await services.admin.revokeDevice(
                    id: DeviceID(try context.parameters.require("id")), actor: viewer.actor)
                return Self.redirect("/console/devices?done=revoked")
            })
    }

    private func peopleData(_ viewer: Viewer) async throws -> [String: Any] {
        let mayManage = viewer.may(.managePeople)
        let rows: [[String: Any]] = try await services.repository.employees().map { employee in
            [
                "id": employee.id.rawValue, "name": employee.name, "externalId": employee.externalId ?? "",
                "email": employee.email ?? "", "active": employee.isActive,
                "deactivated": LocalTime.text(employee.deactivatedAt, zone: "UTC"),
                "mayManage": mayManage && employee.isActive,
            ]
        }
        return ["rows": rows, "empty": rows.isEmpty, "mayManage": mayManage]
    }

    private func deviceData(_ viewer: Viewer) async throws -> [String: Any] {
        let now = environment.now()
        let names = Dictionary(
            try await services.repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let mayManage = viewer.may(.managePeople)
        let rows: [[String: Any]] = try await services.repository.devices(userId: nil).map { device in
            let silentForADay =
                device.revokedAt == nil && now.timeIntervalSince(device.lastSeenAt ?? device.enrolledAt) > 86_400
            return [
                "id": device.id.rawValue, "name": names[device.userId] ?? device.userId.rawValue,
                "deviceName": device.deviceName ?? "", "platform": device.platform,
                "enrolled": LocalTime.text(device.enrolledAt, zone: "UTC"),
                "lastSeen": device.lastSeenAt.map { LocalTime.text($0, zone: "UTC") } ?? "never",
                "revoked": LocalTime.text(device.revokedAt, zone: "UTC"), "silent": silentForADay,
                "appVersion": device.state?.appVersion ?? "",
                "detection": device.state.map { $0.blockers.isEmpty ? "allowed" : $0.blockers.joined(separator: "; ") }
                    ?? "not reported",
                "mayRevoke": mayManage && device.revokedAt == nil,
            ]
        }
        return ["rows": rows, "empty": rows.isEmpty]
    }
}
