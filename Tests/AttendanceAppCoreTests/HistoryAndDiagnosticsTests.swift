import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation
import Testing

@Suite struct HistoryAndDiagnosticsTests {
    let format = RuntimeFixture.format

    @Test func aNightShiftIsSplitAtMidnightAndEachDayHasItsTotal() async throws {
        let fixture = try RuntimeFixture()
        // 09:00–12:00 at HQ on day 1, then 22:00 day 1 to 06:30 day 2 at the annex.
        try await fixture.at(0, .manualCheckIn(RuntimeFixture.hq, reason: "morning"))
        try await fixture.at(3 * 3600, .manualCheckOut(RuntimeFixture.hq, reason: "lunch"))
        try await fixture.at(13 * 3600, .manualCheckIn(RuntimeFixture.annex, reason: "night shift"))
        try await fixture.at(21.5 * 3600, .manualCheckOut(nil, reason: "shift over"))
        try await fixture.runtime.drain()
        let history = HistoryModel(status: try await fixture.status(at: 22 * 3600), format: format)
        #expect(history.days.map(\.title) == ["Mon 23 Nov", "Sun 22 Nov"])
        #expect(history.days.map(\.total) == ["6 h 30 min", "5 h 00 min"])
        #expect(history.days[1].rows.map(\.times) == ["09:00 – 12:00", "22:00 – 06:30"])
        #expect(history.days[0].rows.map(\.times) == ["22:00 – 06:30 (from Sun 22 Nov)"])
        #expect(history.days[0].rows.first?.site == "Annex")
        #expect(history.days[0].rows.first?.duration == "8 h 30 min")
        #expect(history.days[0].rows.first?.notes == ["manual"])
    }

    @Test func undeliveredAndRefusedSessionsSayso() async throws {
        let fixture = try RuntimeFixture()
        fixture.uploader.outcome.value = DeliveryOutcome.retry(reason: "offline", transport: true, retryAfterSeconds: nil)
        try await fixture.at(0, .manualCheckIn(RuntimeFixture.hq, reason: "morning"))
        try await fixture.runtime.drain()
        var history = HistoryModel(status: try await fixture.status(at: 600), format: format)
        #expect(history.days.first?.rows.first?.times == "09:00 – now")
        #expect(history.days.first?.rows.first?.notes == ["manual", "waiting to be sent"])
        fixture.uploader.outcome.value = DeliveryOutcome.rejected(status: 403, detail: "Forbidden: device revoked")
        try await fixture.runtime.networkBecameReachable()
        history = HistoryModel(status: try await fixture.status(at: 700), format: format)
        #expect(history.days.first?.rows.first?.notes == ["manual", "refused by the server"])
    }

    @Test func diagnosticsShowsRegionsOutboxDeadLettersTelemetryAndNamesTheExport() async throws {
        let fixture = try RuntimeFixture()
        fixture.uploader.outcome.value = DeliveryOutcome.rejected(status: 422, detail: "Unprocessable: unknown site")
        try await fixture.at(0, .appLaunched(.userOpened))
        try await fixture.at(1, .manualCheckIn(RuntimeFixture.hq, reason: "beacon down"))
        try await fixture.runtime.drain()
        let hqRegion = BeaconRegion(site: RuntimeFixture.hq)
        let status = try await fixture.status(at: 60, regionStates: [hqRegion: .inside])
        let model = DiagnosticsModel(status: status, format: format)
        #expect(model.regions.map(\.name) == ["HQ", "Annex"])
        #expect(model.regions.map(\.iOSState) == ["inside", "not reported yet"])
        #expect(model.regions.first?.engineState == "inside since 09:00")
        #expect(model.outbox == "0 pending, 0 sending, 0 delivered (kept 7 days), 1 refused")
        #expect(model.deadLetters.count == 1)
        #expect(model.deadLetters.first?.summary == "checkIn at HQ, Sun 22 Nov, 09:00")
        #expect(model.deadLetters.first?.reason.contains("unknown site") == true)
        #expect(model.telemetry.contains { $0.contains("upload") })
        #expect(model.ranging == "Not ranging")

        let export = try await fixture.runtime.store.diagnosticsExport()
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(name: "HQ", major: 1)]
        let file = DiagnosticsModel.fieldTestFile(
            export, deviceID: "phone-1", appVersion: "1.0 (7)", configuration: configuration, at: RuntimeFixture.t0)
        #expect(file.name == "attendance-field-test-phone-1-2026-11-22T090000Z.csv")
        // The audit log and the configuration ride along as comment lines the replay skips.
        #expect(file.contents.contains("# log: {") && file.contents.contains("\"type\":\"deadLetter\""))
        #expect(file.contents.hasPrefix("# Beacon Attendance field test: device phone-1"))
        let recorded = try #require(ReplayTrace.recordedConfiguration(in: file.contents))
        #expect(try Configuration.decode(json: Data(recorded.utf8)) == configuration)
        #expect(throws: Never.self) { try ReplayTrace.parse(file.contents) }
    }

    @Test func anEventTheServerKeepsAnswering409IsShownAfterTenMinutesAndClearedWhenDelivered() async throws {
        let fixture = try RuntimeFixture()
        fixture.uploader.outcome.value = DeliveryOutcome.serverBusy(
            reason: "HTTP 409: Request in progress", retryAfterSeconds: nil)
        try await fixture.at(0, .manualCheckIn(RuntimeFixture.hq, reason: "morning"))
        try await fixture.runtime.drain()
        var model = DiagnosticsModel(status: try await fixture.status(at: 60), format: format)
        #expect(model.stuckOnServer.isEmpty)
        // Ten minutes of 409s (the first one's time is kept, whatever the later attempts).
        for seconds in stride(from: 120.0, through: 660, by: 90) {
            fixture.clock.set(RuntimeFixture.t0.addingTimeInterval(seconds))
            try await fixture.runtime.drain()
        }
        let entry = try #require(try await fixture.runtime.store.entries().first)
        #expect(entry.state == .pending)
        #expect(entry.serverBusySince == RuntimeFixture.t0)
        model = DiagnosticsModel(status: try await fixture.status(at: 660), format: format)
        #expect(model.stuckOnServer.count == 1)
        #expect(model.stuckOnServer.first?.reason.contains("since Sun 22 Nov, 09:00") == true)
        #expect(model.outbox.hasSuffix("1 stuck on the server for over 10 min"))
        let export = try await fixture.runtime.store.diagnosticsExport()
        #expect(export.telemetryJSONLines.contains("\"type\":\"serverBusy\""))
        // Any other answer ends it: delivered, nothing stuck.
        fixture.uploader.outcome.value = DeliveryOutcome.delivered(status: 201)
        fixture.clock.set(RuntimeFixture.t0.addingTimeInterval(4_000))
        try await fixture.runtime.drain()
        model = DiagnosticsModel(status: try await fixture.status(at: 4_000), format: format)
        #expect(model.stuckOnServer.isEmpty)
        #expect(try await fixture.runtime.store.entries().first?.serverBusySince == nil)
    }
}
