import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSync

@Suite(.serialized) struct RuntimeTests {
    /// A radio that looks at the database at the moment it is asked to range.
    final class SnapshotCheckingRadio: BeaconRadio, Sendable {
        let store: DeviceStore
        let sawPersistedWindow = Locked<Bool?>(nil)
        init(store: DeviceStore) { self.store = store }
        func monitor(_ regions: [BeaconRegion]) {}
        func startRanging(_ region: BeaconRegion) {
            let engine = (try? store.loadSnapshot()).flatMap { try? JSONDecoder().decode(Engine.self, from: $0) }
            sawPersistedWindow.value = engine?.isRanging
        }
        func stopRanging(_ region: BeaconRegion) {}
        func requestState(_ region: BeaconRegion) {}
        func setBackgroundLocationUpdates(_ on: Bool) {}
    }

    @Test func theStateIsOnDiskBeforeAnyActionRuns() async throws {
        let store = try DeviceStore.inMemory()
        let radio = SnapshotCheckingRadio(store: store)
        let ports = RecordingPorts()
        let runtime = try AttendanceRuntime(
            store: store, configuration: Configuration(),
            ports: .init(
                clock: ManualClock(Fixtures.t0), radio: radio, motion: ports, timers: ports, background: ports,
                notifier: ports,
                uploader: SwitchableNetwork(
                    HTTPUploader(settings: .init(baseURL: URL(string: "http://127.0.0.1:9")!), clock: SystemClock()))))
        try await runtime.send(.regionEntered(RuntimeHarness.region))
        #expect(radio.sawPersistedWindow.value == true)
    }

    /// A reported time is the engine's time for its event, unless it is up to a minute before
    /// the last event handled (it waited behind another): then that one's time, so the trace
    /// stays in order. Further back is a clock set back, taken as it is.
    @Test func aReportedTimeIsKeptUnlessItWouldGoBackByAMinuteOrLess() async throws {
        let store = try DeviceStore.inMemory()
        let ports = RecordingPorts()
        let uploader = SwitchableNetwork(
            HTTPUploader(settings: .init(baseURL: URL(string: "http://127.0.0.1:9")!), clock: SystemClock()))
        let runtime = try AttendanceRuntime(
            store: store, configuration: Configuration(),
            ports: .init(
                clock: ManualClock(Fixtures.t0), radio: ports, motion: ports, timers: ports, background: ports,
                notifier: ports, uploader: uploader))
        let region = RuntimeHarness.region
        try await runtime.send(.regionEntered(region), at: Fixtures.t0.addingTimeInterval(10))
        try await runtime.send(.regionExited(region), at: Fixtures.t0.addingTimeInterval(5))
        try await runtime.send(.regionEntered(region), at: Fixtures.t0.addingTimeInterval(-3_600))
        try await runtime.send(.regionExited(region))
        let rows = try store.diagnosticsExport().traceCSV.split(separator: "\n").map { $0.split(separator: ",") }
        let times = rows.filter { $0.count == 3 && $0[1] == "event" }.map { String($0[0]) }
        #expect(
            times == [10, 10, -3_600, 0].map { RFC3339.format(Fixtures.t0.addingTimeInterval(Double($0))) })
    }

    @Test func aRelaunchRestoresSettlesWithTheRecordedTimesAndDrains() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        harness.network.online.value = false
        try await harness.at(0, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-60, from: 1, count: 60)
        try await harness.at(90, .regionExited(RuntimeHarness.region))
        #expect(try harness.outboxEvents().map(\.kind) == [.checkIn])

        // Killed while suspended; the next launch is the morning after, online.
        try harness.relaunchProcess()
        harness.network.online.value = true
        harness.clock.set(harness.time(86_400))
        try await harness.runtime.launch(.afterReboot)
        let events = try harness.outboxEvents()
        #expect(events.map(\.kind) == [.checkIn, .checkOut])
        #expect(events[1].timestamp == harness.time(60))  // the last sample, not the relaunch
        #expect(events[0].sessionKey == events[1].sessionKey)
        #expect(try harness.store.counts() == OutboxCounts(delivered: 2))
        #expect(harness.server.state.value.arrivalOrder == events.map(\.idempotencyKey))
        #expect(harness.ports.log.contains("monitor FDA50693-0000-0000-0000-290995101092:1"))
    }

    /// Ranging callbacks that change only soft state (the last-heard time while inside) are
    /// written at most every `checkpointSeconds`; a kill between checkpoints still restores the
    /// open session, and loses only the samples since the last one.
    @Test func softStateIsCheckpointedAtMostEveryThirtySeconds() async throws {
        // Online, so that no delivery retry (a write of its own) falls in between.
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        func persistedLastHeard() throws -> Date? {
            let engine = try harness.store.loadSnapshot().map { try JSONDecoder().decode(Engine.self, from: $0) }
            return engine?.openSessions.first?.lastHeardAt
        }
        try await harness.at(0, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-60, from: 1, count: 10)
        #expect(try harness.outboxEvents().map(\.kind) == [.checkIn])
        #expect(try harness.store.counts() == OutboxCounts(delivered: 1))
        let atCheckIn = try #require(try persistedLastHeard())
        #expect(atCheckIn <= harness.time(10))
        try await harness.ranged(-60, from: 11, count: 40)
        let later = try #require(try persistedLastHeard())
        #expect(later > harness.time(30) && later < harness.time(50))
        #expect(later.timeIntervalSince(atCheckIn) >= AttendanceRuntime.checkpointSeconds)
        // Killed now: the relaunch restores the open session from the last checkpoint.
        try harness.relaunchProcess()
        try await harness.runtime.launch(.afterReboot)
        let restored = await harness.runtime.engine.openSessions
        #expect(restored.count == 1)
        #expect(restored.first.map { $0.lastHeardAt >= later } == true)
    }

    /// A motion answer and a screen-wake region state that change only soft state wait for the
    /// next checkpoint, like ranging; a motion answer that dates a departure is written at once.
    @Test func motionAndRegionStateWaitForTheCheckpointUnlessTheyDateADeparture() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        func persisted() throws -> Engine? {
            try harness.store.loadSnapshot().map { try JSONDecoder().decode(Engine.self, from: $0) }
        }
        try await harness.at(0, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-60, from: 1, count: 10)
        #expect(try harness.outboxEvents().map(\.kind) == [.checkIn])
        let checkpoint = try #require(try harness.store.loadSnapshot())
        try await harness.at(12, .motionUpdated(MotionSnapshot(at: harness.time(12), activity: .stationary, steps: 0)))
        try await harness.at(13, .regionStateDetermined(RuntimeHarness.region, .inside))
        #expect(try harness.store.loadSnapshot() == checkpoint)
        #expect(await harness.runtime.engine != (try persisted()))

        // Leaving: the exit asks for motion, whose walk (from 20 s) dates the check-out.
        harness.ports.motion.value = MotionSnapshot(
            at: harness.time(60), activity: .walking, steps: 40, walkingSince: harness.time(20))
        try await harness.at(60, .regionExited(RuntimeHarness.region))
        let leaving = try #require(try persisted()?.openSessions.first)
        #expect(leaving.lastHeardAt == harness.time(20))
        #expect(await harness.runtime.engine.openSessions.first?.lastHeardAt == harness.time(20))
    }

    /// A window that ends undecided and rolls over to the next changes only soft state: its
    /// snapshot waits for the checkpoint like ranging, but its audit lines are committed at once;
    /// a kill in between restores a window still deciding.
    @Test func aWindowRollingOverWaitsForTheCheckpointButItsAuditLinesDoNot() async throws {
        let harness = try RuntimeHarness { $0.followUpWithoutEvidenceWindows = 100 }
        defer { harness.server.stop() }
        let site = SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)
        try await harness.at(0, .regionEntered(RuntimeHarness.region))
        let opened = try #require(try harness.store.loadSnapshot())
        // Below the dwell floor (-100 dBm), too weak to decide: each window ends insufficient and the entry is
        // followed up (without the limit on windows that give no evidence, which would end the watch at 80 s).
        try await harness.ranged(-101, from: 1, count: 20)
        let audit = try harness.store.telemetry().map(\.kind)
        #expect(audit.filter { $0 == .windowInsufficient }.count == 2)
        #expect(audit.filter { $0 == .windowOpened }.count == 3)
        #expect(try harness.store.loadSnapshot() == opened)
        if case .confirming = await harness.runtime.engine.status(of: site) {
        } else {
            Issue.record("the entry is no longer being decided")
        }

        // Past the checkpoint, the next soft step writes; killed then, a window is still deciding.
        try await harness.ranged(-101, from: 21, count: 12)
        #expect(try harness.store.loadSnapshot() != opened)
        try harness.relaunchProcess()
        if case .confirming = await harness.runtime.engine.status(of: site) {
        } else {
            Issue.record("the relaunch lost the window being decided")
        }
        #expect(try harness.outboxEvents().isEmpty)
    }

    @Test func theMotionPortAnswersTheEnginesQuery() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        // Walked in and stopped: what the port answers is what the walking rule decides on.
        harness.ports.motion.value = MotionSnapshot(
            at: Fixtures.t0, activity: .stationary, confidence: .high, steps: 25)
        try await harness.at(0, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-76, from: 1, count: 10)
        try await harness.advance(to: 20)
        #expect(harness.ports.log.contains("queryMotion 2.0"))
        #expect(try harness.outboxEvents().map { $0.evidence?.rule } == ["walking"])
    }

    @Test func aMotionAnswerThatResumesTheSessionStopsTheRangingTheExitStarted() async throws {
        // Without the window of ranging that follows a called-off exit: the answer's own actions
        // then undo the exit's.
        let harness = try RuntimeHarness { $0.stayedPutRangingSeconds = 0 }
        defer { harness.server.stop() }
        try await harness.at(1, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-61, from: 2, count: 40)
        try await harness.advance(to: 100)
        #expect(try harness.outboxEvents().map(\.kind) == [.checkIn])
        #expect(await !harness.runtime.engine.isRanging)

        // iOS reports the region left, but the phone has not walked since it was last heard:
        // the exit's verification asks for ranging, and the motion answer, handled in the same
        // turn, resumes the session and stops it again.
        harness.ports.motion.value = MotionSnapshot(
            at: harness.time(600), activity: .stationary, confidence: .high, steps: 0, historySince: harness.time(0))
        let before = harness.ports.log.count
        try await harness.at(600, .regionExited(RuntimeHarness.region))
        let calls = Array(harness.ports.log[before...])
        #expect(calls.contains("queryMotion 10.0"), "\(calls)")
        #expect(calls.last { $0.hasPrefix("startRanging") || $0.hasPrefix("stopRanging") }?
            .hasPrefix("stopRanging") == true, "\(calls)")
        #expect(calls.last { $0.hasSuffix("BackgroundTask") } == "endBackgroundTask", "\(calls)")
        #expect(await !harness.runtime.engine.isRanging)
        if case .inside = await harness.runtime.engine.status(of: SiteBeacon(major: 1)) {
        } else {
            Issue.record("the session did not resume")
        }
    }

    @Test func theDiagnosticsExportReplaysToTheSameDecisions() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        try await harness.at(0, .appLaunched(.regionEvent))
        try await harness.at(1, .regionEntered(RuntimeHarness.region))
        try await harness.ranged(-61, from: 2, count: 40)
        try await harness.ranged(0, from: 42, count: 6)
        try await harness.ranged(-63, from: 48, count: 30)
        try await harness.at(108, .regionExited(RuntimeHarness.region))
        try await harness.advance(to: 2000)
        let recorded = try harness.outboxEvents()
        #expect(recorded.map(\.kind) == [.checkIn, .checkOut])

        let export = try harness.store.diagnosticsExport()
        #expect(export.traceCSV.hasPrefix(ReplayTrace.header + "\n"))
        #expect(export.telemetryJSONLines.contains(#""kind":"windowConfirmed""#))
        #expect(export.telemetryJSONLines.split(separator: "\n").first?.contains(#""type":"outbox""#) == true)
        let replayed = Replayer(configuration: harness.configuration).run(try ReplayTrace.parse(export.traceCSV))
        #expect(replayed.decisions.map(\.type) == recorded.map(\.kind))
        #expect(replayed.decisions.map(\.ts) == recorded.map(\.timestamp))
        #expect(replayed.decisions.map(\.sessionKey) == recorded.map(\.sessionKey))
    }

    @Test func deadLettersAppearInTheDiagnosticsExport() async throws {
        let harness = try RuntimeHarness()
        defer { harness.server.stop() }
        harness.server.script(.status(422, detail: "unknown site"))
        try await harness.at(0, .manualCheckIn(SiteBeacon(major: 1), reason: "forgot my phone at home"))
        let export = try harness.store.diagnosticsExport()
        #expect(export.telemetryJSONLines.contains(#""type":"deadLetter""#))
        #expect(export.telemetryJSONLines.contains("unknown site"))
        #expect(await harness.runtime.engine.lastUpload?.deadLetters == 1)
    }
}
