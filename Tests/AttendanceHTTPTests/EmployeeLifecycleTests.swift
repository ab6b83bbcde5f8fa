import AttendanceHTTP
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// An employee who leaves: deactivated, not deleted. Their devices stop, their records stay.
@Suite struct EmployeeLifecycleTests {
    @Test(arguments: Backend.allCases) func aDeactivatedEmployeesDevicesStopAndTheirRecordsStay(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k-1",
                json: LiveServer.checkIn(ada, session: "s-1")
            ).status == 201)
        #expect(
            try await live.send(
                "POST", "/v1/attendance/heartbeat", token: ada.token, key: "k-early",
                json: ["sessionKey": "s-later", "ts": RFC3339Text.format(Date())]
            ).status == 202)
        // What her phone lets the app do, as it reported it (part of what is held about her).
        #expect(
            try await live.send(
                "PUT", "/v1/me/device-state", token: ada.token,
                json: [
                    "location": "whenInUse", "preciseLocation": true, "bluetooth": "poweredOn",
                    "backgroundRefresh": "available", "appVersion": "2.4.1", "observedAt": RFC3339Text.format(Date()),
                ]
            ).status == 204)
        let first = try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate")
        #expect(first.status == 200)
        let deactivatedAt = try #require(first.json["deactivatedAt"] as? String)
        // Again: nothing changes, the first time is kept.
        #expect(
            try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate").json["deactivatedAt"] as? String
                == deactivatedAt)
        // Her phone is refused from its next request; its device shows revoked.
        #expect(
            try await live.send(
                "POST", "/v1/attendance/heartbeat", token: ada.token, key: "k-2",
                json: ["sessionKey": "s-1", "ts": RFC3339Text.format(Date())]
            ).status == 401)
        let devices = try await live.send("GET", "/v1/admin/devices?userId=\(ada.userId)").array
        #expect(devices.count == 1 && devices.allSatisfy { $0["revoked"] as? Bool == true })
        // No new check-in: her devices are revoked, and the admin token posts no device events (403);
        // no new enrollment code for her either.
        let checkIn = try await live.send(
            "POST", "/v1/attendance/check-in", key: "k-3", json: LiveServer.checkIn(ada, session: "s-2"))
        #expect(checkIn.status == 403)
        #expect(checkIn.detail.contains("admin token can't call 'checkIn'"))
        let code = try await live.send("POST", "/v1/admin/enrollment-codes", json: ["userId": ada.userId])
        #expect(code.status == 422)
        #expect(code.detail.contains("deactivated"))
        // Her record and her session are kept.
        #expect(
            try await live.send("GET", "/v1/admin/employees/\(ada.userId)").json["deactivatedAt"] as? String
                == deactivatedAt)
        let sessions =
            try await live.send("GET", "/v1/admin/sessions?userId=\(ada.userId)").json["items"] as? [[String: Any]]
        #expect(sessions?.map { $0["sessionKey"] as? String } == ["s-1"])
        #expect(try await live.send("POST", "/v1/admin/employees/user-ghost/deactivate").status == 404)
        // The source filter: her check-in was automatic; a value outside the contract is 400.
        let manual = try await live.send("GET", "/v1/admin/sessions?source=manual").json["items"] as? [Any]
        #expect(manual?.isEmpty == true)
        let automatic = try await live.send("GET", "/v1/admin/sessions?source=automatic").json["items"] as? [Any]
        #expect(automatic?.count == 1)
        // Her open session was closed by the deactivation: a correction, which the filter finds.
        let corrected =
            try await live.send("GET", "/v1/admin/sessions?source=corrected").json["items"] as? [[String: Any]]
        #expect(corrected?.map { $0["checkOutReason"] as? String } == ["deactivated"])
        #expect(try await live.send("GET", "/v1/admin/sessions?source=edited").status == 400)
        // Everything held about her, in one document (never a token).
        let export = try await live.send("GET", "/v1/admin/employees/\(ada.userId)/export")
        #expect(export.status == 200)
        #expect((export.json["employee"] as? [String: Any])?["deactivatedAt"] as? String == deactivatedAt)
        #expect((export.json["sessions"] as? [[String: Any]])?.map { $0["sessionKey"] as? String } == ["s-1"])
        let phone = try #require((export.json["devices"] as? [[String: Any]])?.first)
        #expect(phone["revoked"] as? Bool == true)
        #expect(phone["appVersion"] as? String == "2.4.1")
        let state = try #require(phone["reportedState"] as? [String: Any])
        #expect(state["location"] as? String == "whenInUse")
        #expect((state["detectionBlockers"] as? [String])?.isEmpty == false)
        #expect((export.json["pendingEvents"] as? [[String: Any]])?.map { $0["sessionKey"] as? String } == ["s-later"])
        #expect(!export.text.contains(ada.token))
        let ledger = (export.json["ledger"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(ledger.first == "employee.created" && ledger.contains("checkIn"))
        // Deactivation, then the correction that closed her open session.
        #expect(Array(ledger.suffix(2)) == ["employee.deactivated", "session.corrected"])
        #expect((export.json["requests"] as? [Any])?.isEmpty == true)
        #expect(try await live.send("GET", "/v1/admin/employees/user-ghost/export").status == 404)
        try await live.stop()
    }
}
