import AttendanceHTTP
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// The admin endpoints over the socket: CRUD, reports, and their refusals.
@Suite struct AdminAPITests {
    @Test(arguments: Backend.allCases) func sitesAndBeacons(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let input: [String: Any] = ["name": "HQ", "timeZone": "Europe/Berlin", "beaconUUID": "FDA50693-0000-0000-0000-290995101092", "major": 7,
                                    "geofence": ["latitude": 52.52, "longitude": 13.40, "radiusMeters": 150]]
        let created = try await live.send("POST", "/v1/admin/sites", json: input)
        #expect(created.status == 201)
        let siteId = try #require(created.json["siteId"] as? String)
        #expect((created.json["geofence"] as? [String: Any])?["radiusMeters"] as? Double == 150)
        #expect(try await live.send("POST", "/v1/admin/sites", json: input).status == 409)

        var badZone = input
        badZone["timeZone"] = "Mars/Olympus"
        let zone = try await live.send("POST", "/v1/admin/sites", json: badZone)
        #expect(zone.status == 422)
        #expect(zone.detail.contains("'timeZone' is 'Mars/Olympus'; expected an IANA time zone"))

        var renamed = input
        renamed["name"] = "Head office"
        #expect(try await live.send("PUT", "/v1/admin/sites/\(siteId)", json: renamed).json["name"] as? String == "Head office")
        #expect(try await live.send("GET", "/v1/admin/sites/\(siteId)").json["name"] as? String == "Head office")
        #expect(try await live.send("GET", "/v1/admin/sites/site-nope").status == 404)

        let beacon = try await live.send("POST", "/v1/admin/sites/\(siteId)/beacons", json: ["minor": 3, "label": "Door", "txPowerDBm": -61])
        #expect(beacon.status == 201)
        let badPower = try await live.send("POST", "/v1/admin/sites/\(siteId)/beacons", json: ["minor": 4, "txPowerDBm": 10])
        #expect(badPower.status == 400)
        #expect(badPower.detail.contains("'txPowerDBm' is '10.0'"))
        #expect(try await live.send("GET", "/v1/admin/sites/\(siteId)/beacons").array.count == 1)
        let beaconId = try #require(beacon.json["beaconId"] as? String)
        #expect(try await live.send("DELETE", "/v1/admin/beacons/\(beaconId)").status == 204)
        #expect(try await live.send("DELETE", "/v1/admin/beacons/\(beaconId)").status == 404)
        #expect(try await live.send("GET", "/v1/admin/sites").array.count == 1)
        #expect(try await live.send("DELETE", "/v1/admin/sites/\(siteId)").status == 204)
        #expect(try await live.send("GET", "/v1/admin/sites").array.isEmpty)
        #expect(try await live.send("GET", "/v1/admin/sites/\(siteId)").status == 200)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func employeesCodesDevicesSessionsAndPresence(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada")
        let bob = try await live.enrollEmployee(name: "Bob")
        #expect(try await live.send("GET", "/v1/admin/employees").array.count == 2)
        #expect(try await live.send("PUT", "/v1/admin/employees/\(ada.userId)", json: ["name": "Ada L.", "email": "ada@example.com"])
            .json["email"] as? String == "ada@example.com")
        #expect(try await live.send("GET", "/v1/admin/employees/\(ada.userId)").json["name"] as? String == "Ada L.")
        let badMail = try await live.send("POST", "/v1/admin/employees", json: ["name": "X", "email": "nope"])
        #expect(badMail.status == 400)
        #expect(badMail.detail.contains("'email' is 'nope'"))
        #expect(try await live.send("POST", "/v1/admin/enrollment-codes", json: ["userId": "user-nobody"]).status == 404)

        // A used code is refused the second time.
        let code = try await live.send("POST", "/v1/admin/enrollment-codes", json: ["userId": ada.userId, "expiresInSeconds": 600]).json["code"] as? String ?? ""
        #expect(try await live.send("POST", "/v1/devices/enroll", token: nil, json: ["code": code, "platform": "ios"]).status == 201)
        #expect(try await live.send("POST", "/v1/devices/enroll", token: nil, json: ["code": code, "platform": "ios"]).status == 410)
        #expect(try await live.send("GET", "/v1/admin/devices?userId=\(ada.userId)").array.count == 2)

        let start = Date().addingTimeInterval(-5_400)
        for (index, who) in [ada, bob].enumerated() {
            let answer = try await live.send("POST", "/v1/attendance/check-in", token: who.token, key: "in-\(index)",
                                             json: LiveServer.checkIn(who, session: "s-\(index)", ts: start.addingTimeInterval(Double(index) * 60)))
            #expect(answer.status == 201)
        }
        let presence = try await live.send("GET", "/v1/admin/presence?siteId=\(ada.siteId)").array
        #expect(presence.compactMap { $0["name"] as? String } == ["Ada L.", "Bob"])

        let first = try await live.send("GET", "/v1/admin/sessions?limit=1").json
        #expect((first["items"] as? [[String: Any]])?.first?["sessionKey"] as? String == "s-0")
        let cursor = try #require(first["nextCursor"] as? String)
        let second = try await live.send("GET", "/v1/admin/sessions?limit=1&cursor=\(cursor)").json
        #expect((second["items"] as? [[String: Any]])?.first?["sessionKey"] as? String == "s-1")
        #expect(second["nextCursor"] == nil)
        let badLimit = try await live.send("GET", "/v1/admin/sessions?limit=0")
        #expect(badLimit.status == 400)
        #expect(badLimit.detail.contains("'limit' is '0'"))
        let badFrom = try await live.send("GET", "/v1/admin/sessions?from=tomorrow")
        #expect(badFrom.status == 400)
        #expect(badFrom.detail.contains("from"))
        let filtered = try await live.send("GET", "/v1/admin/sessions?userId=\(bob.userId)&from=\(RFC3339Text.format(start))").json
        #expect((filtered["items"] as? [[String: Any]])?.map { $0["sessionKey"] as? String } == ["s-1"])
        // A site with sessions is deactivated, not removed: it is still there, marked deleted.
        #expect(try await live.send("DELETE", "/v1/admin/sites/\(ada.siteId)").status == 204)
        #expect(try await live.send("GET", "/v1/admin/sites/\(ada.siteId)").json["deactivatedAt"] is String)
        try await live.stop()
    }
}
