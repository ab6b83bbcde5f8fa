import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// The ledger through the API, over a real socket, on both backends: the admin token posts no
/// device events; a correction, a request and a void are visible with who, when and why; the
/// employee sees the server's record; the audit log pages; erasure keeps the hours.
@Suite struct LedgerAPITests {
    @Test(arguments: Backend.allCases) func theAdminTokenPostsNoDeviceEvents(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let attempts: [(String, String, Any?)] = [
            ("POST", "/v1/attendance/check-in", LiveServer.checkIn(ada)),
            ("POST", "/v1/attendance/check-out", LiveServer.checkOut(ts: Date())),
            ("POST", "/v1/attendance/heartbeat", ["sessionKey": "s-1", "ts": RFC3339Text.format(Date())]),
            ("POST", "/v1/attendance/events", ["events": [] as [Any]]),
            ("GET", "/v1/me/sessions", nil),
            ("GET", "/v1/me/requests", nil),
            (
                "POST", "/v1/me/requests",
                ["reason": "x", "siteId": ada.siteId, "checkInAt": RFC3339Text.format(Date())]
            ),
        ]
        for (method, path, json) in attempts {
            let answer = try await live.send(method, path, key: "k-admin", json: json)
            #expect(answer.status == 403, "\(method) \(path)")
            #expect(answer.detail.contains("the admin token can't call"), "\(path): \(answer.detail)")
        }
        #expect(try await live.send("GET", "/v1/admin/sessions").json["items"] as? [Any] != nil)
        // And a device token is refused on the admin's corrections.
        let correction = try await live.send(
            "POST", "/v1/admin/sessions/s-1/corrections", token: ada.token, json: ["reason": "x"])
        #expect(correction.status == 403)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func correctionsRequestsAndVoidsAreRecordedWithTheirHistory(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let start = Date().addingTimeInterval(-7_200)
        var manual = LiveServer.checkIn(ada, session: "s-m", ts: start)
        manual["source"] = "manual"
        manual["reason"] = "the beacon's battery was flat"
        // The phone's clock is 90 s behind the server's (its Date header).
        let checkIn = try await live.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "k-m", json: manual,
            headers: ["Date": HTTPDate.format(Date().addingTimeInterval(-90))])
        #expect(checkIn.status == 201)
        #expect(checkIn.json["checkInReason"] as? String == "the beacon's battery was flat")
        let skew = try #require(checkIn.json["clockSkewSeconds"] as? Double)
        #expect((88...95).contains(skew))
        let badDate = try await live.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "k-bad-date", json: manual,
            headers: ["Date": "Mon, 31 Feb 2026 25:00:00 GMT"])
        #expect(badDate.status == 400 || badDate.status == 422)
        #expect(badDate.detail.contains("'Date'"))

        // HR corrects the check-in; nothing is overwritten.
        let earlier = start.addingTimeInterval(-600)
        let noReason = try await live.send(
            "POST", "/v1/admin/sessions/s-m/corrections", json: ["checkInAt": RFC3339Text.format(earlier)])
        #expect(noReason.status == 400)
        #expect(noReason.detail.contains("reason"))
        let corrected = try await live.send(
            "POST", "/v1/admin/sessions/s-m/corrections",
            json: ["checkInAt": RFC3339Text.format(earlier), "reason": "the gate log shows 10 minutes earlier"])
        #expect(corrected.status == 200)
        #expect(corrected.json["corrected"] as? Bool == true)
        #expect(corrected.json["checkInAt"] as? String == RFC3339Text.format(earlier))
        let crossing = try await live.send(
            "POST", "/v1/admin/sessions/s-m/corrections",
            json: ["checkOutAt": RFC3339Text.format(earlier.addingTimeInterval(-1)), "reason": "x"])
        #expect(crossing.status == 422)
        #expect(
            try await live.send(
                "POST", "/v1/admin/sessions/s-none/corrections",
                json: [
                    "reason": "x",
                    "checkInAt": RFC3339Text.format(earlier),
                ]
            ).status == 404)

        // The employee sees the server's record, asks for the check-out, HR approves.
        let mine = try await live.send("GET", "/v1/me/sessions", token: ada.token).array
        #expect(mine.first?["corrected"] as? Bool == true)
        let leftAt = start.addingTimeInterval(3_600)
        let filed = try await live.send(
            "POST", "/v1/me/requests", token: ada.token,
            json: [
                "sessionKey": "s-m", "checkOutAt": RFC3339Text.format(leftAt), "reason": "I left at five",
                "evidence": ["motionStartedAt": RFC3339Text.format(leftAt)],
            ])
        #expect(filed.status == 201)
        let requestId = try #require(filed.json["requestId"] as? String)
        #expect(filed.json["state"] as? String == "pending")
        let pending = try await live.send("GET", "/v1/admin/requests?state=pending").array
        #expect(pending.map { $0["requestId"] as? String } == [requestId])
        #expect((pending.first?["evidence"] as? [String: String])?["motionStartedAt"] == RFC3339Text.format(leftAt))
        let rejectWithout = try await live.send(
            "POST", "/v1/admin/requests/\(requestId)/reject", json: [:] as [String: Any])
        #expect(rejectWithout.status == 400)
        let approved = try await live.send(
            "POST", "/v1/admin/requests/\(requestId)/approve", json: ["comment": "matches the door log"])
        #expect(approved.status == 200)
        #expect(approved.json["state"] as? String == "approved")
        let again = try await live.send("POST", "/v1/admin/requests/\(requestId)/approve")
        #expect(again.status == 409, "\(again.status) \(again.text)")
        let mineRequests = try await live.send("GET", "/v1/me/requests", token: ada.token).array
        #expect(mineRequests.first?["comment"] as? String == "matches the door log")
        let session = try await live.send("GET", "/v1/admin/sessions/s-m").json
        #expect(session["checkOutAt"] as? String == RFC3339Text.format(leftAt))

        // The history: the device's check-in, then each change with who and why.
        let history = try await live.send("GET", "/v1/admin/sessions/s-m/history").json
        let entries = try #require(history["entries"] as? [[String: Any]])
        #expect(
            entries.map { $0["kind"] as? String } == [
                "checkIn", "session.corrected", "request.filed", "session.corrected", "request.approved",
            ])
        #expect(entries.first?["actor"] as? String == "device:\(ada.deviceId)")
        #expect(entries[1]["actor"] as? String == "admin-token")
        let details = try #require(entries[1]["details"] as? [String: Any])
        #expect(details["reason"] as? String == "the gate log shows 10 minutes earlier")
        let change = (details["changes"] as? [String: Any])?["checkInAt"] as? [String: Any]
        #expect(change?["before"] as? String == RFC3339Text.format(start))
        #expect(change?["after"] as? String == RFC3339Text.format(earlier))

        // A void instead of a delete; a missed session added; the filters.
        let added = try await live.send(
            "POST", "/v1/admin/sessions",
            json: [
                "userId": ada.userId, "siteId": ada.siteId,
                "checkInAt": RFC3339Text.format(start.addingTimeInterval(-86_400)),
                "checkOutAt": RFC3339Text.format(start.addingTimeInterval(-80_000)), "reason": "phone at repair",
            ])
        #expect(added.status == 201)
        let addedKey = try #require(added.json["sessionKey"] as? String)
        let voided = try await live.send("POST", "/v1/admin/sessions/\(addedKey)/void", json: ["reason": "duplicate"])
        #expect(voided.json["status"] as? String == "voided")
        #expect(
            try await live.send("POST", "/v1/admin/sessions/\(addedKey)/void", json: ["reason": "again"]).status == 409)
        let correctedOnly =
            try await live.send("GET", "/v1/admin/sessions?source=corrected").json["items"] as? [[String: Any]]
        #expect(Set(correctedOnly?.compactMap { $0["sessionKey"] as? String } ?? []) == ["s-m", addedKey])
        let skewed =
            try await live.send("GET", "/v1/admin/sessions?minSkewSeconds=60").json["items"] as? [[String: Any]]
        #expect(skewed?.compactMap { $0["sessionKey"] as? String } == ["s-m"])

        // The audit log: every admin action, newest first, in pages.
        let firstPage = try await live.send("GET", "/v1/admin/audit?actor=admin-token&limit=3").json
        let items = try #require(firstPage["items"] as? [[String: Any]])
        #expect(items.map { $0["kind"] as? String } == ["session.voided", "session.added", "request.approved"])
        let cursor = try #require(firstPage["nextCursor"] as? String)
        let rest = try await live.send("GET", "/v1/admin/audit?actor=admin-token&limit=500&cursor=\(cursor)").json
        let kinds = (rest["items"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(
            kinds.contains("employee.created") && kinds.contains("site.created")
                && kinds.contains("enrollmentCode.issued"))
        let created = (rest["items"] as? [[String: Any]])?.first { $0["kind"] as? String == "employee.created" }
        let personal = (created?["details"] as? [String: Any])?["personal"] as? [String: Any]
        #expect((personal?["name"] as? [String: Any])?["after"] as? String == "Ada")
        #expect(try await live.send("GET", "/v1/admin/audit?cursor=abc").status == 400)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func anErasedEmployeeKeepsTheirHoursAndLosesTheirName(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada Lovelace")
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k", json: LiveServer.checkIn(ada)
            )
            .status == 201)
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/erase").status == 409)
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate").status == 200)
        let erased = try await live.send("POST", "/v1/admin/employees/\(ada.userId)/erase")
        #expect(erased.status == 200)
        #expect(erased.json["name"] as? String == "Erased employee \(ada.userId)")
        let audit = try await live.send("GET", "/v1/admin/audit?userId=\(ada.userId)&limit=500").text
        #expect(!audit.contains("Lovelace"))
        #expect(audit.contains("employee.erased"))
        let sessions = try await live.send("GET", "/v1/admin/sessions?userId=\(ada.userId)").json["items"] as? [Any]
        #expect(sessions?.count == 1)
        // The server's own sealer chains the rows within seconds; nothing is left unsealed.
        var sealed = false
        for _ in 0..<50 where !sealed {
            let metrics = try await live.send("GET", "/metrics").text
            sealed = metrics.split(separator: "\n").contains { line in
                line.hasPrefix("ledger_rows_sealed_total ") && line.split(separator: " ").last != "0"
            }
            if !sealed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sealed)
        let verified = try await LedgerService(repository: live.repository).verify().chain
        #expect(verified.isIntact && verified.sealed > 0)
        try await live.stop()
    }
}
