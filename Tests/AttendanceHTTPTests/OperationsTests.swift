import AttendanceHTTP
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

/// Health, metrics, the contract, request logs, limits and validation over the socket.
@Suite struct OperationsTests {
    @Test(arguments: Backend.allCases) func healthMetricsAndTheContractAreServed(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let health = try await live.send("GET", "/health", token: nil)
        #expect(health.status == 200)
        #expect(health.json["database"] as? String == backend.rawValue)
        #expect(health.json["status"] as? String == "ok")
        let ready = try await live.send("GET", "/ready", token: nil)
        #expect(ready.status == 200)
        #expect(ready.json["status"] as? String == "ready")
        #expect(ready.json["database"] as? String == backend.rawValue)
        #expect(ready.json["migrations"] as? Int == ReleaseSchema.release.count + Migrations.all.count)

        let ada = try await live.enrollEmployee()
        #expect(try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k", json: LiveServer.checkIn(ada)).status == 201)
        let metrics = try await live.send("GET", "/metrics", token: nil)
        #expect(metrics.status == 200)
        #expect(metrics.text.contains(#"http_requests_total{operation="checkIn",status="201"} 1"#))
        #expect(metrics.text.contains(#"http_request_duration_seconds_count{operation="checkIn"} 1"#))
        #expect(metrics.text.contains("http_requests_in_flight"))

        let document = try await live.send("GET", "/openapi.yaml", token: nil)
        #expect(document.status == 200)
        #expect(document.body == (try AttendanceHTTPServer.contract()))
        #expect(document.text.hasPrefix("openapi: 3.1.0"))
        #expect(try await live.send("GET", "/no/such/route", token: nil).status == 404)
        try await live.stop()
    }

    @Test func everyRequestIsOneLogLineWithItsIdStatusAndDurationAndNeverAToken() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        let ada = try await live.enrollEmployee()
        let answer = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "k", json: LiveServer.checkIn(ada),
                                         headers: ["X-Request-Id": "trace-abc.123"])
        #expect(answer.header("X-Request-Id") == "trace-abc.123")
        let generated = try await live.send("GET", "/health", token: nil)
        #expect(generated.header("X-Request-Id")?.count == 16)
        _ = try await live.send("GET", "/v1/admin/sites", token: "wrong-token-value")
        try await live.stop()

        let lines = live.logs.requests
        // The enrollment's five requests, the check-in, /health and the refused one.
        #expect(lines.count == 8)
        let checkIn = try #require(lines.first { $0.metadata["request_id"] == "trace-abc.123" })
        #expect(checkIn.metadata["status"] == "201")
        #expect(checkIn.metadata["operation"] == "checkIn")
        #expect(checkIn.metadata["caller"] == ada.deviceId)
        #expect(Double(checkIn.metadata["duration_ms"] ?? "") != nil)
        #expect(lines.allSatisfy { $0.metadata["request_id"] != nil && $0.metadata["status"] != nil && $0.metadata["duration_ms"] != nil })
        let everything = live.logs.all.map(\.rendered).joined(separator: "\n")
        for secret in [LiveServer.adminToken, ada.token, "wrong-token-value"] { #expect(!everything.contains(secret)) }
    }

    /// A database a server has not brought to this release's schema (another one is migrating it,
    /// or could not): `/ready` answers 503 naming the migrations it lacks, `/health` still 200.
    @Test func aDatabaseWithoutEveryMigrationIsNotReady() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ready-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let older = try SQLiteRepository.open(
            path: directory.appendingPathComponent("older.sqlite").path, migratingThrough: "2026-11-27 account language")
        let live = try await LiveServer.start(older)
        #expect(try await live.send("GET", "/health", token: nil).status == 200)
        let ready = try await live.send("GET", "/ready", token: nil)
        #expect(ready.status == 503)
        #expect(ready.header("Content-Type") == "application/problem+json")
        let detail = ready.json["detail"] as? String ?? ""
        #expect(detail.contains("2026-11-27 console forms sent once"), "\(detail)")
        #expect(detail.contains("2026-11-27 sign-in failures"))
        #expect(!detail.contains("2026-11-27 account language"), "an applied one is not named")
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func limitsAndBoundsAreRefusedWithClearProblems(backend: Backend) async throws {
        let limits = IngestLimits(maxBodyBytes: 4_096, maxBatchItems: 3, maxFutureSeconds: 300, maxPastSeconds: 86_400)
        let live = try await LiveServer.start(try await backend.makeRepository(), limits: limits)
        let ada = try await live.enrollEmployee()

        let big = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "big", body: Data(repeating: 0x20, count: 5_000))
        #expect(big.status == 413)
        #expect(big.detail == "the body is 5000 bytes; the limit is 4096 bytes")

        let item: [String: Any] = ["idempotencyKey": "i", "type": "heartbeat", "heartbeat": ["sessionKey": "s", "ts": RFC3339Text.format(Date())]]
        let batch = try await live.send("POST", "/v1/attendance/events", token: ada.token, key: "batch", json: ["events": Array(repeating: item, count: 4)])
        #expect(batch.status == 413)
        #expect(batch.detail == "the batch has 4 events; the limit is 3")

        let future = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "future",
                                         json: LiveServer.checkIn(ada, ts: Date().addingTimeInterval(3_600)))
        #expect(future.status == 422)
        #expect(future.detail.contains("'ts' is '") && future.detail.contains("no later than 300 s after the server's clock"))
        let old = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "old",
                                      json: LiveServer.checkIn(ada, ts: Date().addingTimeInterval(-2 * 86_400)))
        #expect(old.status == 422)
        #expect(old.detail.contains("within the last 1 days"))

        let unknownSite = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "site", json: LiveServer.checkIn(ada, major: 999))
        #expect(unknownSite.status == 422)
        #expect(unknownSite.detail.contains("'beacon' is") && unknownSite.detail.contains("a configured site"))

        var badTime = LiveServer.checkIn(ada)
        badTime["ts"] = "yesterday"
        let parse = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "parse", json: badTime)
        #expect(parse.status == 400)
        #expect(parse.detail.contains("'ts'") && parse.detail.contains("'yesterday' is not an RFC 3339 timestamp"))

        var wrongType = LiveServer.checkIn(ada)
        wrongType["userId"] = 42
        let typed = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "type", json: wrongType)
        #expect(typed.status == 400)
        #expect(typed.detail == "'userId' has the wrong type; expected a string")
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aBatchAnswersEachItemAsItsEndpointWould(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee()
        let arrived = Date().addingTimeInterval(-1_800)
        let events: [[String: Any]] = [
            ["idempotencyKey": "e-1", "type": "checkIn", "checkIn": LiveServer.checkIn(ada, ts: arrived)],
            ["idempotencyKey": "e-2", "type": "heartbeat", "heartbeat": ["sessionKey": "s-1", "ts": RFC3339Text.format(arrived.addingTimeInterval(900))]],
            ["idempotencyKey": "e-3", "type": "checkOut", "checkOut": LiveServer.checkOut(ts: arrived.addingTimeInterval(1_200))],
            ["idempotencyKey": "e-4", "type": "checkOut"],
        ]
        let answer = try await live.send("POST", "/v1/attendance/events", token: ada.token, key: "batch-1", json: ["events": events])
        #expect(answer.status == 200)
        let results = answer.json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? Int } == [201, 200, 200, 400])
        #expect(((results.last?["problem"] as? [String: Any])?["detail"] as? String)?.contains("events[3].checkOut") == true)
        let again = try await live.send("POST", "/v1/attendance/events", token: ada.token, key: "batch-1", json: ["events": events])
        #expect(again.isReplay(of: answer), "\(again.text)")
        // The single endpoint, with an item's key and payload, replays the item's answer.
        let single = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "e-1", json: LiveServer.checkIn(ada, ts: arrived))
        #expect(single.status == 201)
        try await live.stop()
    }
}
