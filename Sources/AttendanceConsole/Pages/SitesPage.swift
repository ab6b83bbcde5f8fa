import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird

/// Sites and their beacons: time zone, geofence, calibration (each beacon's measured power).
extension Console {
    func registerSites(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "sites",
            use: signedIn("sites", needs: .readDirectory) { request, _, viewer, form in
                let done = form["done"].flatMap { done -> String? in
                    switch done {
                    case "added": viewer.t("Site added.")
                    case "saved": viewer.t("Site saved.")
                    case "beacon": viewer.t("Beacon added.")
                    case "deleted": viewer.t("Site deleted; its records are kept.")
                    case "beaconRemoved": viewer.t("Beacon removed.")
                    default: nil
                    }
                }
                return page(
                    "sites", title: viewer.t("Sites"), viewer: viewer, try await siteData(viewer), notice: done)
            })
        console.post(
            "sites",
            use: signedIn("createSite", needs: .manageSites) { request, _, viewer, form in
                try await formAction(
                    "add-site", template: "sites", title: viewer.t("Sites"), viewer: viewer, sent: form,
                    data: { try await siteData(viewer) }
                ) {
                    _ = try await services.admin.createSite(try siteInput(form), actor: viewer.actor)
                    return Self.redirect("/console/sites?done=added")
                }
            })
        console.post(
            "sites/:id",
            use: signedIn("updateSite", needs: .manageSites) { request, context, viewer, form in
                let id = try context.parameters.require("id")
                return try await formAction(
                    "edit-site", row: id, template: "sites", title: viewer.t("Sites"), viewer: viewer, sent: form,
                    data: { try await siteData(viewer) }
                ) {
                    _ = try await services.admin.updateSite(id: SiteID(id), try siteInput(form), actor: viewer.actor)
                    return Self.redirect("/console/sites?done=saved")
                }
            })
        console.post(
            "sites/:id/beacons",
            use: signedIn("createBeacon", needs: .manageSites) { request, context, viewer, form in
                let id = try context.parameters.require("id")
                return try await formAction(
                    "add-beacon", row: id, template: "sites", title: viewer.t("Sites"), viewer: viewer, sent: form,
                    data: { try await siteData(viewer) }
                ) {
                    _ = try await services.admin.createBeacon(
                        siteId: SiteID(id), minor: Int(try number(form, "minor")), label: form["label"],
                        txPowerDBm: try form["txPowerDBm"].map { _ in try number(form, "txPowerDBm") },
                        actor: viewer.actor)
                    return Self.redirect("/console/sites?done=beacon")
                }
            })
        console.post(
            "sites/:id/delete",
            use: signedIn("deleteSite", needs: .manageSites) { request, context, viewer, form in
                let site = try await services.admin.site(id: SiteID(try context.parameters.require("id")))
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Delete the site %@?", Bidi.isolated(site.name)),
                        consequence: viewer.t(
                            """
                            Its beacon stops checking anyone in and it leaves the lists; its sessions and \
                            timesheets are kept and still name it.
                            """),
                        button: viewer.t("Delete %@", Bidi.isolated(site.name)), back: "/console/sites"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                try await services.admin.deleteSite(id: site.id, actor: viewer.actor)
                return Self.redirect("/console/sites?done=deleted")
            })
        console.post(
            "beacons/:id/delete",
            use: signedIn("deleteBeacon", needs: .manageSites) { request, context, viewer, form in
                let id = BeaconID(try context.parameters.require("id"))
                let beacon = try await services.repository.beacons(siteId: nil).first { $0.id == id }
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t(
                            "Remove the beacon %@?",
                            (beacon.map { viewer.t("minor %@", String($0.minor)) } ?? id.rawValue)
                                + (beacon?.label.map { " (\($0))" } ?? "")),
                        consequence: viewer.t(
                            "Its calibration is forgotten; phones use the site's default power for it."),
                        button: viewer.t("Remove the beacon"), back: "/console/sites"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                try await services.admin.deleteBeacon(id: id, actor: viewer.actor)
                return Self.redirect("/console/sites?done=beaconRemoved")
            })
    }

    static let defaultBeaconUUID = SiteBeacon.defaultUUID.uuidString

    /// A site's form, for adding and for changing one (the service validates every field).
    private func siteInput(_ form: FormData) throws -> AdminService.SiteInput {
        let geofence = try form["latitude"].map { _ in
            Geofence(
                latitude: try number(form, "latitude"), longitude: try number(form, "longitude"),
                radiusMeters: try number(form, "radiusMeters"))
        }
        return AdminService.SiteInput(
            name: form["name"] ?? "", timeZone: form["timeZone"] ?? "",
            beaconUUID: form["beaconUUID"] ?? Self.defaultBeaconUUID, major: Int(try number(form, "major")),
            geofence: geofence)
    }

    private func siteData(_ viewer: Viewer) async throws -> [String: Any] {
        let beacons = Dictionary(grouping: try await services.repository.beacons(siteId: nil), by: \.siteId)
        let mayManage = viewer.may(.manageSites)
        let rows: [[String: Any]] = try await services.repository.sites().filter { viewer.scope.permits($0.id) }.map {
            site in Self.row(site, beacons: beacons[site.id] ?? [], mayManage: mayManage && site.isActive, viewer)
        }
        return [
            "rows": rows, "empty": rows.isEmpty, "mayManage": mayManage, "defaultUUID": Self.defaultBeaconUUID,
            "zones": ["UTC", "Europe/Berlin", "Europe/London", "America/New_York", "Asia/Tokyo"],
        ]
    }

    /// One site's row of the table, with its beacons.
    private static func row(
        _ site: SiteRecord, beacons: [BeaconRecord], mayManage: Bool, _ viewer: Viewer
    ) -> [String: Any] {
        let language = viewer.language
        var row: [String: Any] = [
            "id": site.id.rawValue, "name": site.name, "zone": site.timeZone, "uuid": site.beacon.uuid.uuidString,
            // An identifier, not a quantity: never grouped ("12345", not "12,345"), as on the phone.
            "major": String(site.beacon.major),
            "active": site.isActive, "mayManage": mayManage,
        ]
        let geofence = site.geofence
        row["latitude"] = geofence.map { String($0.latitude) } ?? ""
        row["longitude"] = geofence.map { String($0.longitude) } ?? ""
        row["radius"] = geofence.map { String($0.radiusMeters) } ?? ""
        row["geofence"] =
            geofence.map {
                viewer.t(
                    "%@, %@, radius %@ m", language.number($0.latitude, fractionDigits: 5),
                    language.number($0.longitude, fractionDigits: 5),
                    language.number($0.radiusMeters, fractionDigits: 0))
            } ?? viewer.t("none")
        row["beacons"] = beacons.map { (beacon: BeaconRecord) -> [String: Any] in
            [
                "id": beacon.id.rawValue, "minor": String(beacon.minor), "label": beacon.label ?? "",
                "mayManage": mayManage,
                "power": beacon.txPowerDBm.map { viewer.t("%@ dBm at 1 m", language.number($0, fractionDigits: 1)) }
                    ?? viewer.t("not calibrated"),
            ]
        }
        return row
    }

    func number(_ form: FormData, _ name: String) throws -> Double {
        let text = try form.required(name, label: name)
        guard let value = Double(text), value.isFinite else {
            throw DomainError.field(name, text, expected: "a number")
        }
        return value
    }
}
