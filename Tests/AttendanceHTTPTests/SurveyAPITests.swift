import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// A site survey from a phone: kept for its site, answered with its findings, refused naming the
/// field when a value is out of range, and shown on the console's survey page to those who may
/// see the site.
@Suite struct SurveyAPITests {
    static let uuid = "FDA50693-0000-0000-0000-290995101092"

    static func spot(_ label: String, own: Double, annex: Double?, major: Int = 2) -> [String: Any] {
        var readings: [[String: Any]] = [
            ["uuid": uuid, "major": 1, "minor": 1, "medianRssi": own, "heardShare": 0.9]
        ]
        if let annex {
            readings.append(["uuid": uuid, "major": major, "minor": 7, "medianRssi": annex, "heardShare": 1.0])
        }
        return [
            "label": label, "kind": "desk", "recordedAt": RFC3339.format(Date().addingTimeInterval(-60)),
            "seconds": 20, "readings": readings,
        ]
    }

    @Test(arguments: Backend.allCases) func aSurveyIsKeptWithItsFindingsAndShownOnTheConsole(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada", major: 1)
        let bob = try await live.enrollEmployee(name: "Bob", major: 2)
        let spots = [Self.spot("Desk 4.12", own: -72, annex: -75), Self.spot("Main door", own: -55, annex: -80)]
        let sent = try await live.send(
            "POST", "/v1/me/surveys", token: ada.token, json: ["siteId": ada.siteId, "spots": spots])
        #expect(sent.status == 201, "\(sent.text)")
        #expect(sent.json["spots"] as? Int == 2)
        let findings = try #require(sent.json["findings"] as? [[String: Any]])
        #expect(findings.map { $0["spot"] as? String } == ["Desk 4.12"])
        #expect(findings.first?["problem"] as? String == "neighbourClose")
        #expect(findings.first?["gapDb"] as? Double == 3)
        #expect(findings.first?["neighbour"] as? String == "\(Self.uuid):2:7")
        #expect((findings.first?["advice"] as? String)?.contains("lower its transmit power by 3 dB") == true)

        // Out of range, unknown site, someone else's token: each refused, naming what is wrong.
        let loud = try await live.send(
            "POST", "/v1/me/surveys", token: ada.token,
            json: ["siteId": ada.siteId, "spots": [Self.spot("Desk", own: 12, annex: nil)]])
        #expect(loud.status == 400 && loud.text.contains("spots[0].readings[0].medianRssi"), "\(loud.text)")
        let major = try await live.send(
            "POST", "/v1/me/surveys", token: ada.token,
            json: ["siteId": ada.siteId, "spots": [Self.spot("Desk", own: -60, annex: -70, major: 70_000)]])
        #expect(major.status == 400 && major.text.contains("spots[0].readings[1].major"), "\(major.text)")
        var future = Self.spot("Desk", own: -60, annex: nil)
        future["recordedAt"] = RFC3339.format(Date().addingTimeInterval(86_400))
        let later = try await live.send(
            "POST", "/v1/me/surveys", token: ada.token, json: ["siteId": ada.siteId, "spots": [future]])
        #expect(later.status == 422 && later.text.contains("spots[0].recordedAt"), "\(later.text)")
        let nowhere = try await live.send(
            "POST", "/v1/me/surveys", token: ada.token, json: ["siteId": "nowhere", "spots": spots])
        #expect(nowhere.status == 422 && nowhere.text.contains("'siteId' is 'nowhere'"), "\(nowhere.text)")
        let admin = try await live.send("POST", "/v1/me/surveys", json: ["siteId": ada.siteId, "spots": spots])
        #expect(admin.status == 403)

        // The owner sees the finding with what to change; a manager of the other site does not.
        let owner = try await ConsoleHTTPTests.signIn(live, .owner)
        let page = try await ConsoleHTTPTests.request(
            live, "GET", "/console/sites/\(ada.siteId)/survey", cookie: owner.cookie)
        #expect(page.status == 200)
        #expect(page.body.contains("Desk 4.12") && !page.body.contains("Main door"))
        #expect(page.body.contains("only 3 dB quieter here"))
        #expect(page.body.contains("lower its power by 3 dB") && page.body.contains("Site 2: minor 7 at -75 dBm"))
        #expect(page.body.contains("(major 2, minor 7)"))
        #expect(page.body.contains("Taken by Ada") && page.body.contains("2 spots, 1 to change"))
        let manager = try await ConsoleHTTPTests.signIn(live, .manager, sites: [SiteID(bob.siteId)])
        let hidden = try await ConsoleHTTPTests.request(
            live, "GET", "/console/sites/\(ada.siteId)/survey", cookie: manager.cookie)
        #expect(hidden.status == 404)
        let empty = try await ConsoleHTTPTests.request(
            live, "GET", "/console/sites/\(bob.siteId)/survey", cookie: manager.cookie)
        #expect(empty.status == 200 && empty.body.contains("id=\"no-survey\""))
        try await live.stop()
    }
}
