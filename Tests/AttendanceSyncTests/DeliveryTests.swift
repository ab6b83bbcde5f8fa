import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSync

/// How each server answer is handled, over a real loopback socket.
@Suite(.serialized) struct DeliveryTests {
    let t0 = Fixtures.t0

    struct Setup {
        let server: LoopbackTestServer
        let store: DeviceStore
        let clock: ManualClock
        let drainer: OutboxDrainer
        let uploader: HTTPUploader
    }

    func setup(events: [AttendanceEvent], timeoutSeconds: Double = 4) throws -> Setup {
        let server = try LoopbackTestServer()
        let store = try DeviceStore.inMemory()
        try store.enqueue(events, at: t0)
        let clock = ManualClock(t0)
        let uploader = HTTPUploader(
            settings: .init(baseURL: server.baseURL, deviceToken: "device-token", timeoutSeconds: timeoutSeconds),
            clock: SystemClock())
        let drainer = OutboxDrainer(store: store, uploader: uploader, clock: clock, jitterSeed: 1)
        return Setup(server: server, store: store, clock: clock, drainer: drainer, uploader: uploader)
    }

    @Test func aBatchIsDeliveredOnceAndReplaysAreHarmless() async throws {
        let events = [
            Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.heartbeat, session: "s-a", at: 900),
            Fixtures.event(.checkOut, session: "s-a", at: 1000),
        ]
        let s = try setup(events: events)
        defer { s.server.stop() }
        let report = try #require(try await s.drainer.drain())
        #expect(report.delivered == 3 && report.pending == 0 && report.deadLetters == 0)
        #expect(s.uploader.serverOffersBatch == true)
        #expect(s.server.state.value.receipts == 1)
        #expect(s.server.state.value.arrivalOrder == events.map(\.idempotencyKey))
        // Delivering the same events again (a lost answer) stores nothing new.
        _ = await s.uploader.upload(try s.store.entries())
        #expect(s.server.state.value.stored.count == 3)
        #expect(s.server.state.value.replays == 3)
    }

    @Test func withoutTheBatchEndpointEventsGoOneByOneInOrder() async throws {
        let events = [
            Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkOut, session: "s-a", at: 100),
        ]
        let s = try setup(events: events)
        defer { s.server.stop() }
        s.server.state.withLock { $0.offersBatch = false }
        let report = try #require(try await s.drainer.drain())
        #expect(report.delivered == 2)
        #expect(s.uploader.serverOffersBatch == false)
        #expect(s.server.state.value.arrivalOrder == events.map(\.idempotencyKey))
        #expect(s.server.state.value.stored.values.map(\.type).sorted() == ["checkIn", "checkOut"])
    }

    @Test(arguments: [500, 502, 503, 408, 409, 429])
    func retryableAnswersAreRetriedWithBackoff(status: Int) async throws {
        let s = try setup(events: [Fixtures.event(.checkIn, session: "s-a", at: 0)])
        defer { s.server.stop() }
        s.server.script(.status(status))
        let report = try #require(try await s.drainer.drain())
        #expect(report.delivered == 0 && report.pending == 1 && report.deadLetters == 0)
        let entry = try #require(try s.store.entries().first)
        #expect(entry.state == .pending && entry.attempts == 1)
        #expect(entry.lastError?.hasPrefix("HTTP \(status)") == true)
        #expect(!entry.lastErrorWasTransport)
        // Only a 409 (the key still being processed) starts the clock that Diagnostics reports on.
        #expect((entry.serverBusySince != nil) == (status == 409))
        // First failure: full jitter within [1 s, 2 s].
        #expect(entry.nextAttemptAt >= t0.addingTimeInterval(1) && entry.nextAttemptAt <= t0.addingTimeInterval(2))
        // Not due yet: a drain now sends nothing; once due, it is delivered.
        _ = try await s.drainer.drain()
        #expect(s.server.state.value.receipts == 1)
        s.clock.advance(by: 2)
        #expect(try await s.drainer.drain()?.delivered == 1)
        #expect(s.server.state.value.stored.count == 1)
    }

    @Test func retryAfterIsHonoured() async throws {
        let s = try setup(events: [Fixtures.event(.checkIn, session: "s-a", at: 0)])
        defer { s.server.stop() }
        s.server.script(.status(503, retryAfter: "120"))
        _ = try await s.drainer.drain()
        let entry = try #require(try s.store.entries().first)
        #expect(entry.nextAttemptAt >= t0.addingTimeInterval(120))
        s.clock.advance(by: 119)
        _ = try await s.drainer.drain()
        #expect(s.server.state.value.receipts == 1)
        s.clock.advance(by: 2)
        #expect(try await s.drainer.drain()?.delivered == 1)
    }

    @Test func retryAfterAsAnHTTPDate() {
        let now = Fixtures.t0
        #expect(ResponseClassifier.parseRetryAfter("Sun, 22 Nov 2026 09:01:30 GMT", now: now) == 90)
        #expect(ResponseClassifier.parseRetryAfter("7", now: now) == 7)
        #expect(ResponseClassifier.parseRetryAfter("soon", now: now) == nil)
    }

    @Test(arguments: [
        (422, "unknown site 'FDA50693…:9'"), (400, "ts is 3 days in the future"), (403, "device acts for another user"),
    ])
    func otherClientErrorsAreDeadLetteredWithTheProblemDetail(status: Int, detail: String) async throws {
        let s = try setup(events: [
            Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkIn, session: "s-b", at: 5),
        ])
        defer { s.server.stop() }
        s.server.script(.status(status, detail: detail))
        let report = try #require(try await s.drainer.drain())
        #expect(report.deadLetters == 2)  // the whole batch was answered with it
        let dead = try s.store.deadLetters()
        #expect(dead.count == 2)
        #expect(dead.allSatisfy { $0.lastError == "HTTP \(status): scripted: \(detail)" })
        #expect(report.error?.contains(detail) == true)
    }

    @Test func aPerItemRefusalInABatchDeadLettersOnlyThatItem() async throws {
        let good = Fixtures.event(.checkIn, session: "s-a", at: 0)
        var clash = Fixtures.event(.checkIn, session: "s-b", at: 5)
        let s = try setup(events: [good, clash])
        defer { s.server.stop() }
        // The server already holds s-b's key with a different payload.
        clash.reason = "something else"
        _ = await HTTPUploader(settings: .init(baseURL: s.server.baseURL), clock: SystemClock()).upload([
            OutboxEntry(
                id: 99, event: clash, idempotencyKey: clash.idempotencyKey, state: .pending, attempts: 0,
                nextAttemptAt: t0,
                lastError: nil, lastErrorWasTransport: false, enqueuedAt: t0, deliveredAt: nil)
        ])
        let report = try #require(try await s.drainer.drain())
        #expect(report.delivered == 1 && report.deadLetters == 1)
        #expect(try s.store.deadLetters().first?.lastError?.contains("422") == true)
    }

    @Test func aTimeoutIsATransportFailureRetriedLater() async throws {
        let s = try setup(events: [Fixtures.event(.checkIn, session: "s-a", at: 0)], timeoutSeconds: 4)
        defer { s.server.stop() }
        s.server.script(.delay(6))
        let started = Date()
        let report = try #require(try await s.drainer.drain())
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 3.5 && waited < 6, "the 4 s timeout should end the attempt, took \(waited) s")
        #expect(report.pending == 1)
        let entry = try #require(try s.store.entries().first)
        #expect(entry.lastErrorWasTransport)
        #expect(entry.lastError?.contains("timed out") == true)
    }

    @Test func aRefusedConnectionIsATransportFailure() async throws {
        let s = try setup(events: [Fixtures.event(.checkIn, session: "s-a", at: 0)])
        s.server.stop()
        let report = try #require(try await s.drainer.drain())
        #expect(report.pending == 1 && report.deadLetters == 0)
        #expect(try s.store.entries().first?.lastErrorWasTransport == true)
    }

    @Test func everyRequestCarriesTheKeyAndTheToken() async throws {
        let server = try LoopbackTestServer()
        defer { server.stop() }
        server.state.withLock { $0.offersBatch = false }
        let event = Fixtures.event(.heartbeat, session: "s-a", at: 0)
        let entry = OutboxEntry(
            id: 1, event: event, idempotencyKey: event.idempotencyKey, state: .pending, attempts: 0, nextAttemptAt: t0,
            lastError: nil, lastErrorWasTransport: false, enqueuedAt: t0, deliveredAt: nil)
        let outcomes = await HTTPUploader(
            settings: .init(baseURL: server.baseURL, deviceToken: "t"), clock: SystemClock()
        ).upload([entry])
        #expect(outcomes[1] == .delivered(status: 201))
        #expect(server.state.value.stored[event.idempotencyKey]?.sessionKey == "s-a")
    }

    @Test func backoffGrowsWithFullJitterUpToTheCap() {
        let policy = RetryPolicy(baseDelaySeconds: 2, maxDelaySeconds: 600, minDelaySeconds: 1)
        var random = SplitMix64(seed: 9)
        for attempts in 1...20 {
            let ceiling = min(600, 2 * pow(2, Double(attempts - 1)))
            let samples = (0..<200).map { _ in
                policy.delay(afterAttempts: attempts, retryAfterSeconds: nil, using: &random)
            }
            #expect(samples.allSatisfy { $0 >= 1 && $0 <= max(ceiling, 1) })
            if ceiling >= 64 { #expect(samples.max()! > ceiling / 2) }  // spread over the range, not pinned
        }
        #expect(policy.delay(afterAttempts: 1, retryAfterSeconds: 3600, using: &random) == 3600)
    }
}
