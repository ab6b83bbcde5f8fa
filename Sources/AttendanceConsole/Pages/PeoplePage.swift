import AttendanceExports
import AttendanceModels
import AttendanceRules
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
                        "added": viewer.t("Person added."), "saved": viewer.t("Changes saved."),
                        "deactivated": viewer.t("Person deactivated; their devices are revoked."),
                        "reactivated": viewer.t("Person active again; give them an enrollment code for their phone."),
                    ][$0]
                }
                return page(
                    "people", title: viewer.t("People"), viewer: viewer, try await peopleData(viewer, form),
                    notice: done)
            })
        console.post(
            "people",
            use: signedIn("createEmployee", needs: .managePeople) { request, _, viewer, form in
                try await formAction(
                    "add-person", template: "people", title: viewer.t("People"), viewer: viewer, sent: form,
                    data: { try await peopleData(viewer, FormData("")) }
                ) {
                    _ = try await services.admin.createEmployee(
                        name: form["name"] ?? "", externalId: form["externalId"], email: form["email"],
                        actor: viewer.actor)
                    return Self.redirect("/console/people?done=added")
                }
            })
        console.post(
            "people/:id/edit",
            use: signedIn("updateEmployee", needs: .managePeople) { request, context, viewer, form in
                let person = try await services.admin.employee(id: UserID(try context.parameters.require("id")))
                // Refused: the page again, searched for the person as stored, with their form open.
                return try await formAction(
                    "edit-person", row: person.id.rawValue, template: "people", title: viewer.t("People"),
                    viewer: viewer, sent: form,
                    data: { try await peopleData(viewer, FormData("q=" + Pager.encoded(person.name))) }
                ) {
                    _ = try await services.admin.updateEmployee(
                        id: person.id, name: form["name"] ?? "", externalId: form["externalId"], email: form["email"],
                        actor: viewer.actor)
                    return Self.redirect("/console/people?done=saved")
                }
            })
        console.post(
            "people/:id/deactivate",
            use: signedIn("deactivateEmployee", needs: .managePeople) { request, context, viewer, form in
                let id = UserID(try context.parameters.require("id"))
                let person = try await services.admin.employee(id: id)
                let kept = viewer.t(
                    "Their phones are revoked and stop checking in; their sessions and timesheets are kept.")
                let later = viewer.t("You can reactivate them later; each phone then enrolls again.")
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Deactivate %@?", Bidi.isolated(person.name)),
                        consequence: kept + " " + later,
                        button: viewer.t("Deactivate %@", Bidi.isolated(person.name)),
                        back: "/console/people?q=" + Pager.encoded(person.name)),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                _ = try await services.admin.deactivateEmployee(id: id, actor: viewer.actor)
                return Self.redirect("/console/people?done=deactivated")
            })
        console.post(
            "people/:id/reactivate",
            use: signedIn("reactivateEmployee", needs: .managePeople) { _, context, viewer, form in
                _ = try await services.admin.reactivateEmployee(
                    id: UserID(try context.parameters.require("id")), actor: viewer.actor)
                return Self.redirect("/console/people?done=reactivated")
            })
        console.post(
            "people/:id/enrollment-code",
            use: signedIn("createEnrollmentCode", needs: .managePeople) { request, context, viewer, form in
                let user = UserID(try context.parameters.require("id"))
                return try await once(request, form, viewer: viewer) {
                    let issued = try await services.auth.issueEnrollmentCode(for: user, actor: viewer.actor)
                    var data = try await peopleData(viewer, FormData(""))
                    let person = try await services.repository.employee(id: user)
                    data["code"] = [
                        "user": person?.name ?? user.rawValue, "code": issued.code,
                        "expires": LocalTime.text(issued.expiresAt, zone: "UTC", in: viewer.language),
                    ]
                    return page(
                        "people", title: viewer.t("People"), viewer: viewer, data,
                        notice: viewer.t("Enrollment code issued (shown once)."))
                }
            })
        console.post(
            "people/bulk",
            use: signedIn("bulkPeople", needs: .managePeople) { request, _, viewer, form in
                let ids = try form.ticked("person").map { UserID($0) }
                let people = try await services.repository.employees()
                let byId = Dictionary(people.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                switch form["action"] {
                case "codes", "codesCSV":
                    return try await once(request, form, viewer: viewer) {
                        try await enrollmentCodes(ids, byId, csv: form["action"] == "codesCSV", viewer: viewer)
                    }
                case "deactivate":
                    let kept = viewer.t(
                        "Their phones are revoked and stop checking in; their sessions and timesheets are kept.")
                    if let ask = unconfirmed(
                        Confirmation(
                            question: viewer.tp("Deactivate %lld people?", count: ids.count),
                            consequence: kept + " " + viewer.t("Each can be reactivated later."),
                            button: viewer.t("Deactivate %@", viewer.words.number(ids.count)),
                            back: "/console/people"),
                        request: request, form: form, viewer: viewer)
                    {
                        return ask
                    }
                    let deactivated = try await Bulk.each(ids, name: { byId[$0]?.name ?? $0.rawValue }) { id in
                        try await services.admin.deactivateEmployee(id: id, actor: viewer.actor)
                    }
                    let notice =
                        viewer.tp("%lld deactivated; their devices are revoked.", count: deactivated.done.count)
                        + deactivated.failures { viewer.t("Not deactivated: %@", $0) }
                    return page(
                        "people", title: viewer.t("People"), viewer: viewer, try await peopleData(viewer, FormData("")),
                        notice: notice)
                default:
                    throw DomainError.field(
                        "action", form["action"], expected: "codes, codesCSV or deactivate")
                }
            })
        console.get(
            "devices",
            use: signedIn("devices", needs: .readDirectory) { request, _, viewer, form in
                let done = form["done"] == "revoked" ? viewer.t("Device revoked.") : nil
                return page(
                    "devices", title: viewer.t("Devices"), viewer: viewer, try await deviceData(viewer, form),
                    notice: done)
            })
        console.post(
            "devices/:id/revoke",
            use: signedIn("revokeDevice", needs: .managePeople) { request, context, viewer, form in
                let id = DeviceID(try context.parameters.require("id"))
                let device = try await services.repository.devices(userId: nil).first { $0.id == id }
                var owner: String?
                if let device { owner = try await services.repository.employee(id: device.userId)?.name }
                if let ask = unconfirmed(
                    Confirmation(
                        question: revokeQuestion(device?.deviceName, owner: owner, viewer),
                        consequence: viewer.t("The phone stops checking in at once.") + " "
                            + viewer.t("To use it again, the person enrolls it with a new code."),
                        button: viewer.t("Revoke the phone"), back: "/console/devices"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                _ = try await services.admin.revokeDevice(id: id, actor: viewer.actor)
                return Self.redirect("/console/devices?done=revoked")
            })
    }

    static let directoryPageSize = 50

    /// People by name, 50 a page, found with `q` (name, employee number, e-mail).
    func peopleData(_ viewer: Viewer, _ form: FormData) async throws -> [String: Any] {
        let mayManage = viewer.may(.managePeople)
        // When someone was deactivated, in the zone most of the viewer's sites use.
        let zone = Self.readingZones(try await services.repository.sites(), viewer)[0]
        let everyone = try await services.repository.employees()
        // Each sort key made once (folding a name costs more than comparing it).
        let found = everyone.filter { employee in form["q"].map { EmployeeSearch.matches($0, employee) } ?? true }
            .map { (key: [Self.sortName($0.name), $0.id.rawValue], item: $0) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let (page, next) = Pager.page(found, after: form["after"], size: Self.directoryPageSize, key: \.key)
        let rows: [[String: Any]] = page.map(\.item).map { employee in
            [
                "id": employee.id.rawValue, "name": employee.name, "externalId": employee.externalId ?? "",
                "email": employee.email ?? "", "active": employee.isActive,
                "deactivated": LocalTime.text(employee.deactivatedAt, zone: zone, in: viewer.language),
                "mayManage": mayManage && employee.isActive,
                "mayReactivate": mayManage && !employee.isActive
                    && employee.name != AdminService.erasedName(employee.id),
            ]
        }
        let pager = Pager(path: "/console/people", filters: [("q", form["q"])], form: form)
        return [
            "rows": rows, "hasRows": !rows.isEmpty, "empty": everyone.isEmpty, "mayManage": mayManage,
            "pageMayManage": mayManage,
            "noMatch": !everyone.isEmpty && found.isEmpty, "q": form["q"] ?? "",
            "count": form["q"] == nil
                ? viewer.tp("%lld people", count: everyone.count)
                : viewer.tp("%lld of %@ people match", count: found.count, viewer.words.number(everyone.count)),
            "pager": pager.data(next: next),
        ]
    }

    /// The order lists of people use: by name as a person reads it (case and accents aside), then id.
    static func sortName(_ name: String) -> String { EmployeeSearch.folded(name) }

    /// "Revoke ‹phone› of ‹person›?", as far as the device and its owner are known.
    private func revokeQuestion(_ device: String?, owner: String?, _ viewer: Viewer) -> String {
        switch (device, owner) {
        case (let device?, let owner?): viewer.t("Revoke %@ of %@?", Bidi.isolated(device), Bidi.isolated(owner))
        case (let device?, nil): viewer.t("Revoke %@?", Bidi.isolated(device))
        case (nil, let owner?): viewer.t("Revoke this phone of %@?", Bidi.isolated(owner))
        case (nil, nil): viewer.t("Revoke this phone?")
        }
    }

    /// Devices by their employee's name, 50 a page, found with `q` (the employee, or the device's
    /// name or id).
    private func deviceData(_ viewer: Viewer, _ form: FormData) async throws -> [String: Any] {
        let now = environment.now()
        let employees = Dictionary(
            try await services.repository.employees().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let mayManage = viewer.may(.managePeople)
        // Times in a zone of the viewer's sites (the one most use by default), as on the audit log.
        let zones = Self.readingZones(try await services.repository.sites(), viewer)
        let zone = form["zone"] ?? zones[0]
        guard zones.contains(zone) else {
            throw DomainError.field("zone", zone, expected: "one of " + zones.joined(separator: ", "))
        }
        let all = try await services.repository.devices(userId: nil)
        func name(_ device: DeviceRecord) -> String { employees[device.userId]?.name ?? device.userId.rawValue }
        let found = all.filter { device in
            guard let query = form["q"] else { return true }
            let text = EmployeeSearch.folded(query)
            return employees[device.userId].map { EmployeeSearch.matches(query, $0) } ?? false
                || EmployeeSearch.folded(device.deviceName ?? "").contains(text) || device.id.rawValue == query
        }
        .map { (key: [Self.sortName(name($0)), $0.id.rawValue], item: $0) }
        .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let (page, next) = Pager.page(found, after: form["after"], size: Self.directoryPageSize, key: \.key)
        let rows: [[String: Any]] = page.map(\.item).map { device in
            let silentForADay =
                device.revokedAt == nil && now.timeIntervalSince(device.lastSeenAt ?? device.enrolledAt) > 86_400
            return [
                "id": device.id.rawValue, "name": name(device),
                "deviceName": device.deviceName ?? "", "platform": device.platform,
                "enrolled": LocalTime.text(device.enrolledAt, zone: zone, in: viewer.language),
                "lastSeen": device.lastSeenAt.map { LocalTime.text($0, zone: zone, in: viewer.language) }
                    ?? viewer.t("never"),
                "revoked": LocalTime.text(device.revokedAt, zone: zone, in: viewer.language), "silent": silentForADay,
                "appVersion": device.state?.appVersion ?? device.appVersion ?? viewer.t("not reported yet"),
                // The phone's reasons are the core's fixed sentences: translated where the catalogue has them.
                "detection": device.state.map {
                    $0.blockers.isEmpty
                        ? viewer.t("allowed") : $0.blockers.map(viewer.words.known).joined(separator: "; ")
                } ?? viewer.t("not reported"),
                "mayRevoke": mayManage && device.revokedAt == nil,
            ]
        }
        let pager = Pager(path: "/console/devices", filters: [("q", form["q"]), ("zone", form["zone"])], form: form)
        return [
            "rows": rows, "hasRows": !rows.isEmpty, "empty": all.isEmpty, "noMatch": !all.isEmpty && found.isEmpty,
            "q": form["q"] ?? "", "pager": pager.data(next: next), "zone": zone,
            "zones": zones.map { ["name": $0, "selected": $0 == zone] },
            "count": form["q"] == nil
                ? viewer.tp("%lld devices", count: all.count)
                : viewer.tp("%lld of %@ devices match", count: found.count, viewer.words.number(all.count)),
        ]
    }

    /// New enrollment codes for `ids` (each ends that person's unused ones, each audited): a
    /// printable sheet, or the same as a CSV download. Shown once, like a single code.
    private func enrollmentCodes(
        _ ids: [UserID], _ people: [UserID: EmployeeRecord], csv: Bool, viewer: Viewer
    ) async throws -> Response {
        let issued = try await Bulk.each(ids, name: { people[$0]?.name ?? $0.rawValue }) { id -> [String: Any] in
            let code = try await services.auth.issueEnrollmentCode(for: id, actor: viewer.actor)
            return [
                "name": people[id]?.name ?? id.rawValue, "externalId": people[id]?.externalId ?? "",
                "code": code.code, "expires": LocalTime.text(code.expiresAt, zone: "UTC", in: viewer.language),
                // The CSV is read by machines: its time stays in the one form, whatever the viewer reads.
                "expiresUTC": LocalTime.text(code.expiresAt, zone: "UTC", in: .english),
            ]
        }
        var rows = issued.done
        let failed = issued.failed
        rows.sort { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }
        if csv {
            var text = CSVText.record(["name", "employee_number", "code", "expires_utc"])
            for row in rows {
                text += CSVText.record(["name", "externalId", "code", "expiresUTC"].map { row[$0] as? String ?? "" })
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/csv; charset=utf-8"
            headers[.contentDisposition] = "attachment; filename=\"enrollment-codes.csv\""
            ConsoleSecurity.secure(&headers)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        return page(
            "enrollment-sheet", title: viewer.t("Enrollment codes"), viewer: viewer,
            ["rows": rows, "failed": failed, "count": rows.count],
            notice: viewer.tp(
                "%lld enrollment codes issued (shown once: print this page or hand each one out).", count: rows.count))
    }
}
