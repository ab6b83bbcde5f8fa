import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSync

/// Three working days with no network at all, then the network returns: every event recorded
/// in those 72 hours reaches the server once, in order per session.
@Suite(.serialized) struct OfflineTests {
    @Test func seventyTwoHoursOfflineThenEverythingIsDeliveredOnceInOrder() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        harness.network.online.value = false
        let region = RuntimeHarness.region
        try await harness.at(0, .appLaunched(.userOpened))
        for day in 0..<3 {
            let morning = Double(day) * 86_400
            try await harness.at(morning, .regionEntered(region))
            try await harness.ranged(-60, from: Int(morning) + 1, count: 10)
            try await harness.at(morning + 3 * 3600, .regionStateDetermined(region, .inside))  // screen on at noon
            try await harness.at(morning + 6 * 3600, .locationWake)
            try await harness.at(morning + 6 * 3600 + 1, .regionStateDetermined(region, .inside))
            try await harness.at(morning + 8 * 3600, .regionExited(region))
            try await harness.at(morning + 8 * 3600 + 1200, .locationWake)  // driving home
            try await harness.at(morning + 13 * 3600, .appLaunched(.backgroundRefresh))
        }
        try await harness.advance(to: 72 * 3600)
        let recorded = try harness.outboxEvents()
        #expect(recorded.count == 12, "per day: check-in, two heartbeats, check-out; got \(recorded.map(\.kind))")
        #expect(harness.server.state.value.stored.isEmpty)
        #expect(harness.network.attemptsWhileOffline.value > 50, "delivery must keep trying while offline")
        #expect(try harness.store.counts() == OutboxCounts(pending: 12))

        harness.network.online.value = true
        try await harness.runtime.networkBecameReachable()

        let server = harness.server.state.value
        #expect(server.stored.count == 12 && server.arrivalOrder.count == 12, "each event exactly once")
        #expect(Set(server.stored.keys) == Set(recorded.map(\.idempotencyKey)))
        #expect(try harness.store.counts() == OutboxCounts(delivered: 12))
        // In order per session: the server saw each session's events in the order they happened.
        for session in Set(recorded.map(\.sessionKey)) {
            let arrived = server.arrivalOrder.compactMap { key in
                recorded.first { $0.idempotencyKey == key && $0.sessionKey == session }
            }
            #expect(arrived.map(\.kind) == [.checkIn, .heartbeat, .heartbeat, .checkOut])
            #expect(arrived.map(\.timestamp) == arrived.map(\.timestamp).sorted())
        }
        // The check-out times are the last times heard, not when the phone got round to it.
        let checkOuts: [Double] = recorded.filter { $0.kind == .checkOut }.map {
            $0.timestamp.timeIntervalSince(Fixtures.t0)
        }
        // Each day at 08:00 less the 30 s the phone took to notice.
        let day: Double = 86_400
        let lastHeard: Double = 8 * 3600 - 30
        let leftAt: [Double] = [0.0, day, 2 * day].map { (start: Double) -> Double in start + lastHeard }
        #expect(checkOuts == leftAt)
    }
}
