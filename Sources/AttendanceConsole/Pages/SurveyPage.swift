import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// A site's surveys from the app's scanner: every spot where another site's beacon is within 6 dB
/// of the site's own, or louder, or where the site's own is not heard, with what to change.
/// Whoever may see who is on a site may see its surveys (a manager, only their own sites).
extension Console {
    func registerSurveys(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "sites/:id/survey",
            use: signedIn("siteSurvey", needs: .readPresence) { _, context, viewer, _ in
                let site = try await services.admin.site(id: SiteID(try context.parameters.require("id")))
                guard viewer.scope.permits(site.id) else {
                    throw Problem(404, "No such site", viewer.t("'%@' is not one of your sites", site.id.rawValue))
                }
                let reports = try await services.admin.surveys(siteId: site.id)
                var surveys: [[String: Any]] = []
                for report in reports { surveys.append(try await surveyData(report, site: site, viewer)) }
                let data: [String: Any] = [
                    "site": site.name, "siteId": site.id.rawValue, "empty": reports.isEmpty, "surveys": surveys,
                ]
                return page("survey", title: viewer.t("Site survey: %@", site.name), viewer: viewer, data)
            })
    }

    private func surveyData(
        _ report: AdminService.SurveyReport, site: SiteRecord, _ viewer: Viewer
    ) async throws -> [String: Any] {
        let stored = report.stored
        // Who took it, by name and phone (nil once that person was erased: the phone's id only).
        var person: String?
        var phone = stored.deviceId.rawValue
        if let user = stored.userId {
            person = try await services.repository.employee(id: user)?.name
            let device = try await services.repository.devices(userId: user).first { $0.id == stored.deviceId }
            phone = device?.deviceName ?? phone
        }
        let language = viewer.language
        let findings: [[String: Any]] = report.findings.map { finding in
            [
                "spot": finding.spot.label, "kind": Self.kindText(finding.spot.kind, viewer),
                "problem": Self.problemText(finding.problem, viewer),
                "own": finding.own.map { Self.readingText($0, viewer) } ?? viewer.t("not heard"),
                "neighbour": finding.neighbour.map { reading in
                    (report.siteNames[reading.beacon.site].map { "\($0): " } ?? "") + Self.readingText(reading, viewer)
                } ?? "",
                "advice": finding.advice.map { Self.adviceText($0, viewer) },
                "louder": { if case .neighbourLouder = finding.problem { return true } else { return false } }(),
            ]
        }
        return [
            "received": LocalTime.text(stored.receivedAt, zone: site.timeZone, in: language),
            "by": person.map { "\($0) (\(phone))" } ?? phone,
            "spots": viewer.words.number(stored.survey.spots.count),
            "findings": findings, "clear": findings.isEmpty,
            "count": viewer.words.number(findings.count),
        ]
    }

    private static func readingText(_ reading: SurveyReading, _ viewer: Viewer) -> String {
        viewer.t(
            "minor %@ at %@ dBm", String(reading.beacon.minor),
            viewer.language.number(reading.medianRSSI, fractionDigits: 0))
    }

    private static func kindText(_ kind: SurveySpot.Kind, _ viewer: Viewer) -> String {
        switch kind {
        case .desk: viewer.t("desk")
        case .door: viewer.t("door")
        case .corridor: viewer.t("corridor")
        case .other: viewer.t("other spot")
        }
    }

    private static func problemText(_ problem: SurveyFinding.Problem, _ viewer: Viewer) -> String {
        switch problem {
        case .ownNotHeard: viewer.t("None of the site's own beacons is heard here.")
        case .neighbourLouder(let dB):
            viewer.t("Another site's beacon is %@ dB louder here.", viewer.language.number(dB, fractionDigits: 0))
        case .neighbourClose(let dB):
            viewer.t(
                "Another site's beacon is only %@ dB quieter here (6 dB needed).",
                viewer.language.number(dB, fractionDigits: 0))
        }
    }

    private static func adviceText(_ advice: SurveyFinding.Advice, _ viewer: Viewer) -> String {
        switch advice {
        case .addBeacon(let dB):
            viewer.t(
                "Add a beacon of this site near the spot (it must be %@ dB louder here).",
                viewer.language.number(dB.rounded(.up), fractionDigits: 0))
        case .moveOrLower(let beacon, let dB):
            viewer.t(
                "Or move that site's beacon (major %@, minor %@) away, or lower its power by %@ dB.",
                // Identifiers, not quantities: never grouped ("12677", not "12,677").
                String(beacon.major), String(beacon.minor),
                viewer.language.number(dB.rounded(.up), fractionDigits: 0))
        }
    }
}
