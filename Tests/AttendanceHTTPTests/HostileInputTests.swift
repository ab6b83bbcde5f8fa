import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// What an attacker or a broken client sends, over a real socket, on both backends: control
/// characters in every string, path and query; malformed and oversized framing; a site deleted
/// under a check-in. Every answer is a 4xx naming the problem; a 5xx fails the test.
@Suite struct HostileInputTests {
    static let poisons = ["nul\u{0}x", "bell\u{7}", "esc\u{1B}[2J", "del\u{7F}", "c1\u{85}", "cr\r"]

    @Test(arguments: Backend.allCases) func controlCharactersAreRefusedInEveryBodyField(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let checkIn = LiveServer.checkIn(ada, session: "s-1")
        let site: [String: Any] = [
            "name": "HQ", "timeZone": "Europe/Berlin", "beaconUUID": "FDA50693-0000-0000-0000-290995101092",
                                   "major": 9]
        // (token, method, path, body, field) for each string field of each operation with a body.
        var cases: [(String, String, String, [String: Any], [String])] = [
            (ada.token, "POST", "/v1/attendance/check-in", checkIn, ["userId", "sessionKey", "reason", "siteId"]),
            (ada.token, "POST", "/v1/attendance/check-out", LiveServer.checkOut(ts: Date()), ["sessionKey", "reason"]),
            (
                ada.token, "POST", "/v1/attendance/heartbeat", ["sessionKey": "s-1", "ts": RFC3339Text.format(Date())],
                ["sessionKey"]
            ),
            (LiveServer.adminToken, "POST", "/v1/admin/sites", site, ["name", "timeZone"]),
            (LiveServer.adminToken, "POST", "/v1/admin/employees", ["name": "Eve"], ["name", "externalId", "email"]),
            (LiveServer.adminToken, "POST", "/v1/admin/sites/\(ada.siteId)/beacons", ["minor": 3], ["label"]),
            (LiveServer.adminToken, "POST", "/v1/admin/enrollment-codes", ["userId": ada.userId], ["userId"]),
        ]
        cases.append(
            (
                "", "POST", "/v1/devices/enroll", ["code": "AAAAA-AAAAA", "platform": "ios"],
                ["code", "platform", "deviceName"]
            ))
        for (token, method, path, body, fields) in cases {
            for field in fields {
                for poison in Self.poisons {
                    var hostile = body
                    hostile[field] = poison
                    let answer = try await live.send(
                        method, path, token: token.isEmpty ? nil : token, key: "k-\(field)",
                                                     json: hostile)
                    #expect(
                        answer.status == 400, "\(method) \(path) \(field)=\(poison.debugDescription): \(answer.status)")
                    #expect(answer.detail.contains(field), "\(answer.detail)")
                }
            }
        }
        // Nested and batched strings too, named by their path.
        let nested = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-nested",
            json: checkIn.merging(["deviceMeta": ["deviceId": "d\u{0}", "platform": "ios"]]) { $1 })
        #expect(nested.status == 400)
        #expect(nested.detail.contains("deviceMeta.deviceId"))
        let batch = try await live.send("POST", "/v1/attendance/events", token: ada.token, key: "b-1",
                                        json: ["events": [["idempotencyKey": "i\u{0}", "type": "heartbeat",
                        "heartbeat": ["sessionKey": "s-1", "ts": RFC3339Text.format(Date())],
                    ]
                ]
            ])
        #expect(batch.status == 400)
        #expect(batch.detail.contains("events[0].idempotencyKey"))
        // Two session keys that differ only after a NUL never become one session: both refused.
        #expect(try await live.repository.openSessions(siteId: nil).isEmpty)
        #expect(try await live.send("GET", "/v1/admin/employees").array.count == 1)
        #expect(live.logs.all.allSatisfy { $0.message != "request failed" })
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func controlCharactersAreRefusedInPathsAndQueries(backend: Backend) async throws
    {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let paths = [
            "/v1/admin/sites/x%00y", "/v1/admin/sites/x%00y/beacons", "/v1/admin/employees/u%01",
            "/v1/admin/beacons/b%7F",
            "/v1/admin/sessions?userId=%00", "/v1/admin/sessions?siteId=a%1Bb", "/v1/admin/sessions?cursor=%00",
                     "/v1/admin/presence?siteId=%00", "/v1/admin/devices?userId=%C2%85"]
        for path in paths {
            let answer = try await live.send(path.contains("beacons/b") ? "DELETE" : "GET", path)
            #expect(answer.status == 400, "\(path): \(answer.status) \(answer.detail)")
            #expect(answer.detail.contains("control characters"), "\(path): \(answer.detail)")
        }
        let revoke = try await live.send("POST", "/v1/admin/devices/d%00/revoke")
        #expect(revoke.status == 400)
        // An id outside the identifier rule names the field.
        let spaced = try await live.send("GET", "/v1/admin/sites/a%20b")
        #expect(spaced.status == 400)
        #expect(spaced.detail.contains("'siteId' is 'a b'"))
        #expect(live.logs.all.allSatisfy { $0.message != "request failed" })
        try await live.stop()
    }

    /// Random Unicode (astral, combining, right-to-left, tab and newline) is stored and read back
    /// byte for byte; a seeded generator, so a failure is reproducible.
    @Test(arguments: Backend.allCases) func acceptedTextIsReadBackByteForByte(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        var random = SplitMix64(seed: 21)
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x2FF, 0x300...0x36F, 0x590...0x6FF, 0x4E00...0x4FFF,
                                            0x1F300...0x1F6FF, 0x10000...0x10FFF, 0xE000...0xF8FF]
        for round in 0..<40 {
            var scalars = String.UnicodeScalarView()
            scalars.append("x")   // not blank
            for _ in 0..<Int(random.next() % 60) {
                let pool = pools[Int(random.next() % UInt64(pools.count))]
                let value = pool.lowerBound + UInt32(random.next() % UInt64(pool.upperBound - pool.lowerBound + 1))
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            if round % 5 == 0 { scalars.append(contentsOf: "\tline\nnext".unicodeScalars) }
            let name = String(scalars)
            let created = try await live.send(
                "POST", "/v1/admin/employees", json: ["name": name, "externalId": "ext-\(round)-" + name])
            #expect(created.status == 201, "\(name.debugDescription): \(created.detail)")
            let id = try #require(created.json["userId"] as? String)
            let read = try await live.send("GET", "/v1/admin/employees/\(id)").json
            #expect(
                Array((read["name"] as? String ?? "").utf8) == Array(name.trimmingCharacters(in: .whitespaces).utf8))
            #expect(Array((read["externalId"] as? String ?? "").utf8) == Array(("ext-\(round)-" + name).utf8))
        }
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aCheckInAtADeletedSiteIs422NeverA500(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        #expect(try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k-0",
                                    json: LiveServer.checkIn(ada, session: "s-0")).status == 201)
        // Check-ins race the deletion: each one is recorded (201) or refused (422), nothing else.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 1...20 {
                group.addTask {
                    var body = LiveServer.checkIn(ada, session: "s-\(index)")
                    if index % 2 == 0 { body["siteId"] = ada.siteId }
                    return try await live.send(
                        "POST", "/v1/attendance/check-in", token: ada.token, key: "k-\(index)", json: body
                    ).status
                }
            }
            group.addTask { try await live.send("DELETE", "/v1/admin/sites/\(ada.siteId)").status }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { [201, 204, 422].contains($0) }, "\(statuses)")
        for (index, viaId) in [(30, true), (31, false)] {
            var body = LiveServer.checkIn(ada, session: "s-\(index)")
            if viaId { body["siteId"] = ada.siteId }
            let late = try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k-\(index)", json: body)
            #expect(late.status == 422)
            #expect(late.detail.contains("was deleted"), "\(late.detail)")
        }
        // The session from before the deletion still points to the site, which is still there.
        #expect(
            try await live.send("GET", "/v1/admin/sessions").json["items"].map { ($0 as? [Any])?.count ?? 0 } ?? 0 >= 1)
        #expect(try await live.send("GET", "/v1/admin/sites/\(ada.siteId)").status == 200)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func framingEdgesAreFourHundredsAndCloseWhenTheyMust(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let port = live.server.port
        let head = "POST /v1/attendance/check-in HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(ada.token)\r\n"
            + "Content-Type: application/json\r\nIdempotency-Key: k\r\nTransfer-Encoding: chunked\r\n\r\n"
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 10)
        let oversized =
            Array(head.utf8) + Array(String(big.count, radix: 16).utf8) + Array("\r\n".utf8) + big
            + Array("\r\n0\r\n\r\n".utf8)
        let tooLarge = try await RawHTTP.exchange(port: port, bytes: oversized)
        #expect(tooLarge.hasPrefix("HTTP/1.1 413"), "\(tooLarge.prefix(80))")
        let malformed = try await RawHTTP.exchange(port: port, bytes: Array((head + "zz\r\nabc\r\n0\r\n\r\n").utf8))
        #expect(malformed.hasPrefix("HTTP/1.1 400"), "\(malformed.prefix(80))")
        #expect(malformed.hasSuffix(RawHTTP.closedMark))
        let old = try await RawHTTP.exchange(port: port, bytes: Array("GET /health HTTP/1.0\r\n\r\n".utf8))
        #expect(old.contains("\"status\":\"ok\""))
        #expect(old.hasSuffix(RawHTTP.closedMark), "an HTTP/1.0 request without keep-alive closes its connection")
        let kept = try await RawHTTP.exchange(port: port, bytes: Array("GET /health HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
        #expect(kept.hasSuffix(RawHTTP.openMark), "an HTTP/1.1 connection stays open")
        let trace = try await RawHTTP.exchange(
            port: port, bytes: Array("TRACE /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8))
        #expect(trace.hasPrefix("HTTP/1.1 405"))
        #expect(trace.lowercased().contains("allow: get"))
        let delete = try await live.send("DELETE", "/v1/admin/sites")
        #expect(delete.status == 405)
        #expect(delete.header("Allow") == "GET, POST")
        #expect(live.logs.all.allSatisfy { $0.message != "request failed" })
        try await live.stop()
    }
}
