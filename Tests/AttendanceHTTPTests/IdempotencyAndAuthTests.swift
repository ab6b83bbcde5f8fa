import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

/// The exactly-once rules (docs/SERVER.md) and the auth rules over a real loopback socket, on both backends.
@Suite struct IdempotencyAndAuthTests {
    @Test(arguments: Backend.allCases) func aReplayIsTheStoredAnswerByteForByte(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let body = LiveServer.checkIn(ada)
        let first = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-1", json: body)
        #expect(first.status == 201)
        #expect(first.json["sessionKey"] as? String == "s-1")
        #expect(first.json["checkInAt"] as? String == body["ts"] as? String)
        let again = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-1", json: body)
        #expect(again.status == 201)
        // Byte for byte. On a machine so loaded that the row was not in the tree within the receipt
        // wait, the first answer went without its receipt, and the replay carries it.
        if first.receipts.isEmpty {
            #expect(again.isReplay(of: first), "\(again.text)")
        } else {
            #expect(again.body == first.body)
        }
        let receipted = first.receipts.isEmpty ? again : first
        // What went over the wire is what the server stored for the key, with the row's receipt
        // as the object's last member (LEDGER.md, "Receipts").
        let stored = try await IngestService.contract(repository: live.repository, environment: .live).handle(
            .checkIn, body: try JSONSerialization.data(withJSONObject: body), idempotencyKey: "k-1",
            principal: .device(DeviceID(ada.deviceId), user: UserID(ada.userId)))
        #expect(stored.status == 201)
        #expect(receipted.json["receipt"] is [String: Any])
        #expect(receipted.body.starts(with: stored.body.dropLast()))
        #expect(receipted.text.dropFirst(stored.body.count - 1).hasPrefix(",\"receipt\":{"))

        var changed = body
        changed["ts"] = RFC3339Text.format(Date().addingTimeInterval(-300))
        let clash = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-1", json: changed)
        #expect(clash.status == 422)
        #expect(clash.header("Content-Type") == "application/problem+json")
        #expect(clash.detail.contains("'k-1' was already used with a different payload"))

        let keyless = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, json: body)
        #expect(keyless.status == 400)
        #expect(keyless.detail.contains("'Idempotency-Key' is missing"))
        // Natural idempotency: another key for the same session answers 200 with the session.
        let natural = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-2", json: body)
        #expect(natural.status == 200)
        #expect(natural.json["sessionKey"] as? String == "s-1")
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aCheckOutGivesTheSessionItsTimes(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let arrived = Date().addingTimeInterval(-3_600)
        let left = arrived.addingTimeInterval(2_700)
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "in",
                json: LiveServer.checkIn(ada, ts: arrived)
            ).status == 201)
        let early = try await live.send(
            "POST", "/v1/attendance/check-out", token: ada.token, key: "early",
            json: LiveServer.checkOut(ts: arrived.addingTimeInterval(-60)))
        #expect(early.status == 422)
        #expect(early.detail.contains("expected a time at or after the session's check-in"))
        let out = try await live.send(
            "POST", "/v1/attendance/check-out", token: ada.token, key: "out", json: LiveServer.checkOut(ts: left))
        #expect(out.status == 200)
        let page = try await live.send("GET", "/v1/admin/sessions?userId=\(ada.userId)")
        let items = page.json["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1)
        #expect(items.first?["checkInAt"] as? String == RFC3339Text.format(arrived))
        #expect(items.first?["checkOutAt"] as? String == RFC3339Text.format(left))
        #expect(items.first?["workedSeconds"] as? Int == 2_700)
        #expect(items.first?["status"] as? String == "closed")
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func tokensAreCheckedOnEveryRequest(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada")
        let bob = try await live.enrollEmployee(name: "Bob")

        let missing = try await live.send("GET", "/v1/admin/sites", token: nil)
        #expect(missing.status == 401)
        #expect(missing.header("Content-Type") == "application/problem+json")
        #expect(try await live.send("GET", "/v1/admin/sites", token: "not-a-token").status == 401)
        #expect(
            try await live.send("POST", "/v1/attendance/check-in", token: nil, key: "k", json: LiveServer.checkIn(ada))
                .status == 401)

        let adminRoute = try await live.send("GET", "/v1/admin/employees", token: ada.token)
        #expect(adminRoute.status == 403)
        #expect(adminRoute.detail.contains("needs an admin or API token"))

        let forBob = try await live.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "k",
            json: LiveServer.checkIn(bob, session: "bob-1"))
        #expect(forBob.status == 403)
        #expect(forBob.detail.contains("cannot check in user '\(bob.userId)'"))

        #expect(try await live.send("GET", "/v1/config", token: ada.token).status == 200)
        #expect(try await live.send("POST", "/v1/admin/devices/\(ada.deviceId)/revoke").status == 200)
        let revoked = try await live.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "k2", json: LiveServer.checkIn(ada))
        #expect(revoked.status == 401)
        #expect(revoked.detail.contains("was revoked"))
        // Bob's device is unaffected.
        #expect(try await live.send("GET", "/v1/config", token: bob.token).status == 200)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func twentyIdenticalCheckInsAtOnceMakeOneSession(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let body = try JSONSerialization.data(withJSONObject: LiveServer.checkIn(ada))
        let sameKey = try await withThrowingTaskGroup(of: HTTPAnswer.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "same", body: body)
                }
            }
            return try await group.reduce(into: [HTTPAnswer]()) { $0.append($1) }
        }
        #expect(sameKey.filter { $0.status == 201 }.count >= 1)
        #expect(sameKey.allSatisfy { [201, 409].contains($0.status) })
        // One answer; its receipt is the same in each that has it (LEDGER.md, "Receipts": an answer
        // whose row was not in the tree within the receipt wait, on a loaded machine, has none).
        let created = sameKey.filter { $0.status == 201 }
        #expect(Set(created.map(\.withoutReceipts)).count == 1, "\(created.map(\.text))")
        #expect(Set(created.flatMap(\.receipts)).count <= 1, "\(created.map(\.text))")
        let distinctKeys = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await live.send(
                        "POST", "/v1/attendance/check-in", token: ada.token, key: "key-\(index)", body: body
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(distinctKeys.allSatisfy { $0 == 200 })
        let sessions = try await live.send("GET", "/v1/admin/sessions").json["items"] as? [[String: Any]] ?? []
        #expect(sessions.count == 1)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func afterARestartEverythingIsStillThere(backend: Backend) async throws {
        let store = try await backend.makeStore()
        let live = try await LiveServer.start(store.repository)
        let ada = try await live.enrollEmployee()
        let arrived = Date().addingTimeInterval(-7_200)
        let first = try await live.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "in", json: LiveServer.checkIn(ada, ts: arrived))
        #expect(first.status == 201)
        let pending = try await live.send(
            "POST", "/v1/attendance/check-out", token: ada.token, key: "out-2",
            json: LiveServer.checkOut(session: "s-2", ts: arrived.addingTimeInterval(600)))
        #expect(pending.status == 202)
        try await live.stop()

        let restarted = try await LiveServer.start(try await store.reopen())
        let replay = try await restarted.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "in", json: LiveServer.checkIn(ada, ts: arrived))
        #expect(replay.status == 201)
        #expect(replay.isReplay(of: first), "\(replay.text)")
        let sessions = try await restarted.send("GET", "/v1/admin/sessions").json["items"] as? [[String: Any]] ?? []
        #expect(sessions.map { $0["sessionKey"] as? String } == ["s-1"])
        // The pending check-out waited through the restart and closes its session when it arrives.
        let late = try await restarted.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "in-2",
            json: LiveServer.checkIn(ada, session: "s-2", ts: arrived.addingTimeInterval(60)))
        #expect(late.json["status"] as? String == "closed")
        #expect(try await restarted.send("GET", "/v1/config", token: ada.token).status == 200)
        try await restarted.stop()
    }
}
