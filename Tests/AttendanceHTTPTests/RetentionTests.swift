import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Logging
import Testing

@testable import AttendanceHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Idempotency keys are forgotten after their retention (30 days), by a service that runs inside
/// the server; the clock is injected, so "31 days later" is now.
@Suite struct RetentionTests {
    static let now = Date(timeIntervalSince1970: 1_795_338_000)

    @Test(arguments: Backend.allCases) func keysOlderThanTheRetentionAreGoneAfterAPurge(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        let answer = StoredReply(status: 201, contentType: "application/json", body: Data("{}".utf8))
        for (key, age) in [("old", 31.0), ("new", 29.0)] {
            _ = try await repository.storeAnswer(
                now: Self.now.addingTimeInterval(-age * 86_400),
                answering: AnswerSlot(scope: "device:a", key: key, requestHash: "h") { answer })
        }
        let metrics = ServerMetrics()
        let purger = IdempotencyPurger(
            repository: repository, retentionSeconds: IngestLimits().idempotencyRetentionSeconds,
            interval: .seconds(3_600), metrics: metrics, logger: Logger(label: "test"),
            environment: .clock({ Self.now }))
        #expect(try await purger.purgeOnce() == 1)
        #expect(try await purger.purgeOnce() == 0)
        #expect(metrics.exposition().contains("idempotency_keys_purged_total 1"))
        // The younger key is still there: its answer is replayed; the older one is new again.
        #expect(
            try await repository.claimIdempotency(scope: "device:a", key: "new", requestHash: "h", now: Self.now)
                == .replay(answer))
        #expect(
            try await repository.claimIdempotency(scope: "device:a", key: "old", requestHash: "h", now: Self.now)
                == .claimed)
    }

    @Test func theServerPurgesAtStartAndCountsItInItsMetrics() async throws {
        let repository = try await Backend.sqlite.makeRepository()
        _ = try await repository.claimIdempotency(
            scope: "device:a", key: "old", requestHash: "h",
            now: Self.now.addingTimeInterval(-40 * 86_400))
        let server = try await RunningServer.start(repository: repository, environment: .clock({ Self.now }))
        var exposition = ""
        for _ in 0..<100 where !exposition.contains("idempotency_keys_purged_total 1") {
            let (data, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("metrics"))
            exposition = String(decoding: data, as: UTF8.self)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(exposition.contains("idempotency_keys_purged_total 1"))
        try await server.stop()
    }
}
