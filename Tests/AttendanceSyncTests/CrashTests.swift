import AttendanceModels
@testable import AttendanceSync
import AttendanceTestSupport
import Foundation
import GRDB
import Testing

/// Never lose an event: a child process enqueues numbered events and is killed with SIGKILL at
/// random moments, over and over, on a real database file. Then the outbox is drained to a real
/// HTTP server on loopback by children that are killed too.
@Suite(.serialized) struct CrashTests {
    static let killsWanted = 200

    @Test func killedAtRandomEveryAcknowledgedEventIsStoredOnceAndDeliveredOnce() async throws {
        let probe = try builtExecutable("outbox-crash-probe")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("outbox.sqlite").path
        var random = SplitMix64(seed: 2026)

        // Phase 1: enqueue under fire.
        var acknowledged = Set<Int>()
        var next = 0
        var kills = 0
        var killsMidEnqueue = 0
        var runs = 0
        while kills < Self.killsWanted {
            runs += 1
            // Enough work that every run ends in a kill.
            let child = try ChildProcess(probe, ["enqueue", database, String(next), "1000000"])
            if runs % 2 == 0 {
                // Timed from spawn: start-up, opening the file, migrations, the first enqueues.
                try await Task.sleep(for: .milliseconds(UInt64.random(in: 1...80, using: &random)))
            } else {
                // Timed from the first acknowledged enqueue: deep in the enqueue loop.
                let deadline = Date().addingTimeInterval(10)
                while !child.hasWritten, Date() < deadline { try await Task.sleep(for: .milliseconds(1)) }
                try await Task.sleep(for: .milliseconds(UInt64.random(in: 0...30, using: &random)))
            }
            child.killNow()
            let result = await child.finish()
            if result.reason == .uncaughtSignal { kills += 1 } else {
                #expect(result.status == 0, "a probe run failed on its own: status \(result.status)")
            }
            let numbers = result.lines.compactMap(Int.init)
            if result.reason == .uncaughtSignal, !numbers.isEmpty { killsMidEnqueue += 1 }
            #expect(numbers.count == result.lines.count, "unexpected output: \(result.lines.suffix(3))")
            acknowledged.formUnion(numbers)

            // After every restart: each acknowledged event is present exactly once.
            let store = try DeviceStore.open(path: database)
            let stored = try await store.writer.read { db in
                try Double.fetchAll(db, sql: "SELECT eventTimestamp FROM outbox").map { Int($0 - 1_795_338_000) }
            }
            #expect(stored.count == Set(stored).count, "an event is stored twice after kill \(kills)")
            let missing = acknowledged.subtracting(stored)
            #expect(missing.isEmpty, "acknowledged but lost after kill \(kills): \(missing.sorted().prefix(5))")
            if !missing.isEmpty { return }
            // The next child starts after the last acknowledged event: anything it committed
            // unacknowledged is enqueued again, and its re-derived key makes that a no-op.
            next = (numbers.max() ?? next - 1) + 1
        }
        #expect(kills >= Self.killsWanted)
        // Kills land anywhere from process start-up (mid-migration) to deep in the enqueue loop;
        // enough of them must land while enqueues are happening for the test to mean much.
        #expect(killsMidEnqueue >= 100, "only \(killsMidEnqueue) kills landed after the first enqueue")
        print("crash test: \(kills) SIGKILLs over \(runs) runs (\(killsMidEnqueue) mid-enqueue); \(acknowledged.count) acknowledged events")

        // Phase 2: drain to a real server on loopback, killing the drainer now and then.
        let server = try LoopbackTestServer()
        defer { server.stop() }
        var drainKills = 0
        for _ in 0..<20 {
            // The server stores the child's first batch, then answers slowly; the kill lands once
            // that request has arrived, while the child believes the batch is in flight, so the
            // next drain must send it again and the server must not store it twice.
            server.script(.slowAnswer(0.6))
            let before = server.state.value.receipts
            let child = try ChildProcess(probe, ["drain", database, server.baseURL.absoluteString])
            let deadline = Date().addingTimeInterval(10)
            while server.state.value.receipts == before, Date() < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            try await Task.sleep(for: .milliseconds(UInt64.random(in: 0...300, using: &random)))
            child.killNow()
            if await child.finish().reason == .uncaughtSignal { drainKills += 1 }
        }
        let final = try ChildProcess(probe, ["drain", database, server.baseURL.absoluteString])
        let finalResult = await final.finish()
        #expect(finalResult.status == 0)
        #expect(finalResult.lines.last?.hasSuffix("pending 0 dead 0") == true, "final drain: \(finalResult.lines)")

        let store = try DeviceStore.open(path: database)
        let entries = try store.entries()
        let undelivered = entries.filter { $0.state != .delivered }
        #expect(undelivered.isEmpty, "not delivered: \(undelivered.count), e.g. \(undelivered.prefix(3).map { "\($0.state) \($0.lastError ?? "-")" })")
        let serverState = server.state.value
        #expect(Set(serverState.stored.keys) == Set(entries.map(\.idempotencyKey)), "the server's events differ from the outbox's")
        #expect(serverState.arrivalOrder.count == serverState.stored.count, "an event was stored twice on the server")
        #expect(serverState.arrivalOrder.count == entries.count)
        // The resend path was exercised: batches stored before a kill came again and were replayed.
        #expect(drainKills == 20)
        #expect(serverState.replays > 0)
        print("crash test: drained \(entries.count) events with \(drainKills) drainer kills; server saw \(serverState.receipts) requests, \(serverState.replays) replays")
    }
}
