import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSync

/// The drainer starts no request that the background time left might cut short: the rest waits
/// for the next wake, and nothing is lost or marked.
@Suite struct DrainerBackgroundTimeTests {
    let t0 = Fixtures.t0

    /// Delivers everything, counting requests.
    final class CountingUploader: Uploader, Sendable {
        let requests = Locked(0)

        func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
            requests.withLock { $0 += 1 }
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .delivered(status: 201)) })
        }
    }

    func drainer(timeLeft: Double?) throws -> (OutboxDrainer, DeviceStore, CountingUploader) {
        let store = try DeviceStore.inMemory()
        try store.enqueue([Fixtures.event(.checkIn, session: "s-a", at: 0)], at: t0)
        let uploader = CountingUploader()
        let drainer = OutboxDrainer(
            store: store, uploader: uploader, clock: ManualClock(t0), jitterSeed: 1,
            timeLeft: { timeLeft }, secondsPerRequest: 5)
        return (drainer, store, uploader)
    }

    @Test func withTooLittleTimeLeftNoRequestStarts() async throws {
        let (drainer, store, uploader) = try drainer(timeLeft: 2)
        let report = try #require(try await drainer.drain())
        #expect(uploader.requests.value == 0)
        #expect(report.delivered == 0 && report.pending == 1)
        #expect(report.error?.contains("2.0 s of background time left") == true)
        // The row is untouched: due now, no attempt counted.
        let entry = try #require(try store.entries().first)
        #expect(entry.attempts == 0)
        #expect(try store.earliestPendingAttempt() != nil)
    }

    @Test func withEnoughTimeOrNoLimitItSends() async throws {
        for left in [10.0, nil] {
            let (drainer, _, uploader) = try drainer(timeLeft: left)
            let report = try #require(try await drainer.drain())
            #expect(uploader.requests.value == 1)
            #expect(report.delivered == 1 && report.error == nil)
        }
    }
}
