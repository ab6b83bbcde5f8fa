import AttendanceEngine
import AttendanceModels
@testable import AttendanceSync
import Foundation
import Testing

@Suite struct OutboxStoreTests {
    let t0 = Fixtures.t0

    @Test func aFileDatabaseRunsInWALWithFullSync() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try DeviceStore.open(path: path)
        let settings = try store.durabilitySettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2)   // FULL
    }

    @Test func enqueueIsIdempotentByContent() throws {
        let store = try DeviceStore.inMemory()
        let checkIn = Fixtures.event(.checkIn, session: "s-a", at: 0)
        #expect(try store.enqueue([checkIn], at: t0) == 1)
        #expect(try store.enqueue([checkIn], at: t0.addingTimeInterval(5)) == 0)   // re-derived after a crash
        #expect(try store.counts() == OutboxCounts(pending: 1))
        let entry = try #require(try store.entries().first)
        #expect(entry.event == checkIn)
        #expect(entry.idempotencyKey == checkIn.idempotencyKey)
        #expect(entry.attempts == 0 && entry.state == .pending && entry.lastError == nil)
    }

    @Test func batchesAreFIFOPerSession() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkIn, session: "s-b", at: 1),
                           Fixtures.event(.heartbeat, session: "s-a", at: 900), Fixtures.event(.checkOut, session: "s-a", at: 1000),
                           Fixtures.event(.checkOut, session: "s-b", at: 1001)], at: t0)
        let all = try store.nextBatch(now: t0, limit: 10)
        #expect(all.map(\.event.kind) == [.checkIn, .checkIn, .heartbeat, .checkOut, .checkOut])

        // Session a's check-in failed and waits: nothing later of session a may overtake it.
        try store.markInFlight([all[0].id])
        try store.markRetry(all[0].id, error: "HTTP 503", transport: false, nextAttemptAt: t0.addingTimeInterval(60))
        let meanwhile = try store.nextBatch(now: t0.addingTimeInterval(1), limit: 10)
        #expect(meanwhile.map(\.event.sessionKey.rawValue) == ["s-b", "s-b"])
        // In flight blocks its session too.
        try store.markInFlight([meanwhile[0].id])
        #expect(try store.nextBatch(now: t0.addingTimeInterval(1), limit: 10).isEmpty)
        // Once due, session a resumes in order.
        let later = try store.nextBatch(now: t0.addingTimeInterval(61), limit: 2)
        #expect(later.map(\.event.kind) == [.checkIn, .heartbeat])
        #expect(later.allSatisfy { $0.event.sessionKey.rawValue == "s-a" })
    }

    @Test func aHeartbeatWaitsForCompanyUntilItsHoldEnds() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0)], at: t0)
        let checkIn = try store.nextBatch(now: t0, limit: 10, heartbeatHoldSeconds: 1_800)
        try store.markDelivered(checkIn.map(\.id), at: t0)
        // Alone, a heartbeat is held: nothing to send, and the delivery timer is set for the hold's end.
        try store.enqueue([Fixtures.event(.heartbeat, session: "s-a", at: 900)], at: t0.addingTimeInterval(900))
        #expect(try store.nextBatch(now: t0.addingTimeInterval(900), limit: 10, heartbeatHoldSeconds: 1_800).isEmpty)
        #expect(try store.earliestPendingAttempt(heartbeatHoldSeconds: 1_800) == t0.addingTimeInterval(2_700))
        // Without a hold it goes at once.
        #expect(try store.nextBatch(now: t0.addingTimeInterval(900), limit: 10).map(\.event.kind) == [.heartbeat])
        // Held heartbeats travel with the next event that is sent, in order.
        try store.enqueue([Fixtures.event(.heartbeat, session: "s-a", at: 1_800)], at: t0.addingTimeInterval(1_800))
        try store.enqueue([Fixtures.event(.checkIn, session: "s-b", at: 2_000)], at: t0.addingTimeInterval(2_000))
        let together = try store.nextBatch(now: t0.addingTimeInterval(2_000), limit: 10, heartbeatHoldSeconds: 1_800)
        #expect(together.map(\.event.kind) == [.heartbeat, .heartbeat, .checkIn])
    }

    @Test func aHeartbeatHeldLongEnoughGoesAloneAndTakesTheYoungerOnesAlong() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.heartbeat, session: "s-a", at: 0)], at: t0)
        try store.enqueue([Fixtures.event(.heartbeat, session: "s-a", at: 900)], at: t0.addingTimeInterval(900))
        #expect(try store.nextBatch(now: t0.addingTimeInterval(1_799), limit: 10, heartbeatHoldSeconds: 1_800).isEmpty)
        let due = try store.nextBatch(now: t0.addingTimeInterval(1_800), limit: 10, heartbeatHoldSeconds: 1_800)
        #expect(due.map(\.event.timestamp) == [t0, t0.addingTimeInterval(900)])
        // A check-out is never held behind its session's held heartbeat: both go.
        let other = try DeviceStore.inMemory()
        try other.enqueue([Fixtures.event(.heartbeat, session: "s-a", at: 0),
                           Fixtures.event(.checkOut, session: "s-a", at: 60)], at: t0)
        let both = try other.nextBatch(now: t0.addingTimeInterval(60), limit: 10, heartbeatHoldSeconds: 1_800)
        #expect(both.map(\.event.kind) == [.heartbeat, .checkOut])
        #expect(try other.earliestPendingAttempt(heartbeatHoldSeconds: 1_800) == t0.addingTimeInterval(1_800))
    }

    @Test func theNextAttemptIsTheEarliestHeadOfLineNotABlockedRow() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkOut, session: "s-a", at: 60)], at: t0)
        let head = try store.nextBatch(now: t0, limit: 1)[0]
        try store.markRetry(head.id, error: "offline", transport: true, nextAttemptAt: t0.addingTimeInterval(300))
        // The check-out's own time (t0) is past, but it waits behind the check-in.
        #expect(try store.earliestPendingAttempt() == t0.addingTimeInterval(300))
        try store.markInFlight([head.id])
        #expect(try store.earliestPendingAttempt() == nil)
    }

    @Test func aDeadLetterDoesNotBlockItsSessionAndStaysVisible() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkOut, session: "s-a", at: 60)], at: t0)
        let first = try store.nextBatch(now: t0, limit: 1)[0]
        try store.markDead(first.id, reason: "HTTP 422: unknown site", at: t0)
        #expect(try store.nextBatch(now: t0, limit: 10).map(\.event.kind) == [.checkOut])
        #expect(try store.deadLetters().map(\.lastError) == ["HTTP 422: unknown site"])
        #expect(try store.compactDelivered(now: t0.addingTimeInterval(365 * 86_400)) == 0)   // never compacted
        #expect(try store.counts().dead == 1)
        #expect(try store.requeueDeadLetters(now: t0) == 1)
        #expect(try store.counts() == OutboxCounts(pending: 2))
    }

    @Test func inFlightRowsArePendingAgainAfterACrash() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0)], at: t0)
        try store.markInFlight(try store.nextBatch(now: t0, limit: 5).map(\.id))
        #expect(try store.counts() == OutboxCounts(inFlight: 1))
        #expect(try store.recoverInFlight() == 1)
        #expect(try store.counts() == OutboxCounts(pending: 1))
        #expect(try store.entries().first?.attempts == 1)
    }

    @Test func deliveredRowsAreCompactedAfterTheRetentionPeriod() throws {
        let store = try DeviceStore.inMemory(limits: .init(deliveredRetentionSeconds: 3600))
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkIn, session: "s-b", at: 1)], at: t0)
        let entries = try store.nextBatch(now: t0, limit: 5)
        try store.markDelivered([entries[0].id], at: t0)
        try store.markDelivered([entries[1].id], at: t0.addingTimeInterval(3000))
        #expect(try store.compactDelivered(now: t0.addingTimeInterval(3599)) == 0)
        #expect(try store.compactDelivered(now: t0.addingTimeInterval(3601)) == 1)
        #expect(try store.counts() == OutboxCounts(delivered: 1))
    }

    @Test func onlyTransportFailuresAreDueAgainWhenTheNetworkReturns() throws {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0), Fixtures.event(.checkIn, session: "s-b", at: 1)], at: t0)
        let entries = try store.nextBatch(now: t0, limit: 5)
        try store.markRetry(entries[0].id, error: "network error", transport: true, nextAttemptAt: t0.addingTimeInterval(500))
        try store.markRetry(entries[1].id, error: "HTTP 503", transport: false, nextAttemptAt: t0.addingTimeInterval(500))
        #expect(try store.resetTransportBackoff(now: t0.addingTimeInterval(10)) == 1)
        #expect(try store.nextBatch(now: t0.addingTimeInterval(10), limit: 5).map(\.event.sessionKey.rawValue) == ["s-a"])
        #expect(try store.earliestPendingAttempt() == t0.addingTimeInterval(10))
    }

    @Test func telemetryAndTraceLogsAreBounded() throws {
        let store = try DeviceStore.inMemory(limits: .init(telemetryRows: 10, traceRows: 5))
        for index in 0..<25 {
            try store.commit(.init(telemetry: [TelemetryRecord(at: t0.addingTimeInterval(Double(index)), kind: .windowOpened, site: SiteBeacon(major: 2),
                                                               detail: "record \(index)")],
                                   traceLines: ["line \(index)"]), at: t0)
        }
        let telemetry = try store.telemetry()
        #expect(telemetry.map(\.detail) == (15..<25).map { "record \($0)" })
        #expect(telemetry.first?.site == SiteBeacon(major: 2))
        #expect(try store.traceLines() == (20..<25).map { "line \($0)" })
    }

    @Test func aTransitionCommitsStateAndEventsTogether() throws {
        let store = try DeviceStore.inMemory()
        let snapshot = Data("engine-state".utf8)
        #expect(try store.commit(.init(snapshot: snapshot, events: [Fixtures.event(.checkIn, session: "s-a", at: 0)]), at: t0) == 1)
        #expect(try store.loadSnapshot() == snapshot)
        #expect(try store.counts().pending == 1)
    }
}
