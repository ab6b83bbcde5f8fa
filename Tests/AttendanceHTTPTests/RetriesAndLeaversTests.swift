import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

@testable import AttendanceHTTP

/// An admin's retried "add session" adds one; a deactivated employee is no longer on site, with a
/// ledger row that says why; erasing twice is one erasure. Over HTTP, on both databases.
@Suite struct RetriesAndLeaversTests {
    @Test(arguments: Backend.allCases) func aRetriedAddSessionAddsOne(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada")
        let body: [String: Any] = [
            "userId": ada.userId, "siteId": ada.siteId, "checkInAt": "2026-11-20T08:00:00Z",
            "checkOutAt": "2026-11-20T16:00:00Z", "reason": "forgot the phone",
        ]
        var keys: Set<String> = []
        for _ in 0..<4 {
            let answer = try await live.send("POST", "/v1/admin/sessions", key: "add-1", json: body)
            #expect(answer.status == 201)
            keys.insert(answer.json["sessionKey"] as? String ?? "")
        }
        #expect(keys.count == 1)
        let listed = try await live.send("GET", "/v1/admin/sessions?userId=\(ada.userId)").json["items"] as? [Any]
        #expect(listed?.count == 1)
        // Without a key, each request is its own; the same key for someone else is refused.
        #expect(try await live.send("POST", "/v1/admin/sessions", json: body).status == 201)
        let bob = try await live.enrollEmployee(name: "Bob")
        var bobs = body
        bobs["userId"] = bob.userId
        let reused = try await live.send("POST", "/v1/admin/sessions", key: "add-1", json: bobs)
        #expect(reused.status == 409)
        #expect(reused.detail.contains("Idempotency-Key"))
        try await live.stop()
    }

    /// Sites and employees created with an `Idempotency-Key`: a retry makes nothing new; the same
    /// key from another caller is that caller's own.
    @Test(arguments: Backend.allCases) func retriedCreatesOfSitesAndEmployeesMakeOne(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let site: [String: Any] = [
            "name": "Depot", "timeZone": "Europe/Berlin", "beaconUUID": "FDA50693-0000-0000-0000-290995101092",
            "major": 77,
        ]
        var siteIds: Set<String> = []
        for _ in 0..<3 {
            let answer = try await live.send("POST", "/v1/admin/sites", key: "depot", json: site)
            #expect(answer.status == 201, "\(answer.text)")
            siteIds.insert(answer.json["siteId"] as? String ?? "")
        }
        #expect(siteIds.count == 1)
        #expect(try await live.send("GET", "/v1/admin/sites").array.count == 1)
        var userIds: Set<String> = []
        for _ in 0..<3 {
            let answer = try await live.send("POST", "/v1/admin/employees", key: "hire-7", json: ["name": "Grace"])
            #expect(answer.status == 201)
            userIds.insert(answer.json["userId"] as? String ?? "")
        }
        #expect(userIds.count == 1)
        let hr = try await RolesOverHTTPTests.token(live, .hr)
        let theirs = try await live.send(
            "POST", "/v1/admin/employees", token: hr, key: "hire-7", json: ["name": "Alan"])
        #expect(theirs.status == 201)
        #expect(!userIds.contains(theirs.json["userId"] as? String ?? ""))
        #expect(try await live.send("POST", "/v1/admin/employees", key: "bad key", json: ["name": "X"]).status == 400)
        try await live.stop()
    }

    /// A retried beacon is the one beacon (not a 409 on its minor); a retried enrollment code is the
    /// same code, still one valid code, until it is used: then the key answers 409.
    @Test(arguments: Backend.allCases) func retriedBeaconsAndEnrollmentCodesMakeOne(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada")
        var beaconIds: Set<String> = []
        for _ in 0..<3 {
            let answer = try await live.send(
                "POST", "/v1/admin/sites/\(ada.siteId)/beacons", key: "door-beacon",
                json: ["minor": 4, "label": "Door"])
            #expect(answer.status == 201, "\(answer.text)")
            beaconIds.insert(answer.json["beaconId"] as? String ?? "")
        }
        #expect(beaconIds.count == 1)
        #expect(try await live.send("GET", "/v1/admin/sites/\(ada.siteId)/beacons").array.count == 1)
        #expect(
            try await live.send("POST", "/v1/admin/sites/\(ada.siteId)/beacons", json: ["minor": 4]).status == 409)

        let grace = try await live.send("POST", "/v1/admin/employees", json: ["name": "Grace"]).json["userId"]
        var codes: Set<String> = []
        var expiries: Set<String> = []
        for _ in 0..<3 {
            let answer = try await live.send(
                "POST", "/v1/admin/enrollment-codes", key: "grace-phone", json: ["userId": grace ?? ""])
            #expect(answer.status == 201, "\(answer.text)")
            codes.insert(answer.json["code"] as? String ?? "")
            expiries.insert(answer.json["expiresAt"] as? String ?? "")
        }
        #expect(codes.count == 1 && expiries.count == 1)
        let code = try #require(codes.first)
        let audit = try await live.send("GET", "/v1/admin/audit?userId=\(grace ?? "")&limit=500").json
        let issued = (audit["items"] as? [[String: Any]] ?? []).filter {
            $0["kind"] as? String == "enrollmentCode.issued"
        }
        #expect(issued.count == 1)
        // Another key: another code (which replaces the first, one valid code per person).
        let other = try await live.send(
            "POST", "/v1/admin/enrollment-codes", key: "grace-phone-2", json: ["userId": grace ?? ""])
        #expect(other.status == 201 && other.json["code"] as? String != code)
        let enrolled = try await live.send(
            "POST", "/v1/devices/enroll", json: ["code": other.json["code"] as? String ?? "", "platform": "ios"])
        #expect(enrolled.status == 201, "\(enrolled.text)")
        for key in ["grace-phone", "grace-phone-2"] {
            let again = try await live.send(
                "POST", "/v1/admin/enrollment-codes", key: key, json: ["userId": grace ?? ""])
            #expect(again.status == 409, "\(key): \(again.text)")
            #expect(again.detail.contains("issue one with a new key"))
        }
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aDeactivatedEmployeeIsNoLongerOnSite(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada")
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k1", json: LiveServer.checkIn(ada)
            ).status == 201)
        #expect(try await live.send("GET", "/v1/admin/presence").array.count == 1)
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate").status == 200)
        #expect(try await live.send("GET", "/v1/admin/presence").array.isEmpty)
        let session = try await live.send("GET", "/v1/admin/sessions/s-1").json
        #expect(session["checkOutReason"] as? String == "deactivated")
        #expect(session["checkOutAt"] != nil)
        let history = try await live.send("GET", "/v1/admin/sessions/s-1/history").text
        #expect(history.contains("\"reason\":\"deactivated\""), "\(history)")
        // Deactivating again closes nothing more and writes no row.
        let before = try await live.send("GET", "/v1/admin/audit?limit=500").json["items"] as? [Any]
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate").status == 200)
        #expect(
            (try await live.send("GET", "/v1/admin/audit?limit=500").json["items"] as? [Any])?.count == before?.count)
        // Erasing twice is one erasure.
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/erase").status == 200)
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/erase").status == 200)
        let audit = try await live.send("GET", "/v1/admin/audit?userId=\(ada.userId)&limit=500").text
        #expect(audit.components(separatedBy: "employee.erased").count - 1 == 1)
        try await live.stop()
    }
}
