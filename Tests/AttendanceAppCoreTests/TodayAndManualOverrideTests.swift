import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation
import Testing

@Suite struct TodayAndManualOverrideTests {
    let format = RuntimeFixture.format

    @Test func beforeAnythingHappensTodaySaysSoAndOnlyCheckInIsOffered() async throws {
        let fixture = try RuntimeFixture()
        let status = try await fixture.status(at: 0)
        let today = TodayModel(status: status, format: format)
        #expect(today.headline == "Not checked in")
        #expect(today.workedToday == "Worked today: 0 min")
        #expect(today.lastSync == "Not synced yet")
        #expect(today.pending == "All events sent")
        #expect(today.canCheckIn && !today.canCheckOut)
        #expect(ManualOverride(.checkOut, format: format, status: status) == nil)
        #expect(ManualOverride(.checkIn, format: format, status: status)?.choices.map(\.name) == ["HQ", "Annex"])
    }

    @Test func aManualCheckInNeedsASiteAndAReasonThenShowsOnToday() async throws {
        let fixture = try RuntimeFixture()
        fixture.uploader.outcome.value = DeliveryOutcome.retry(reason: "offline", transport: true, retryAfterSeconds: nil)
        var manual = try #require(ManualOverride(.checkIn, format: format, status: try await fixture.status(at: 0)))
        #expect(manual.site == nil)   // two sites: the employee chooses
        manual.reason = " x "
        guard case .failure(let errors) = manual.validated() else { Issue.record("accepted without a site"); return }
        #expect(errors.fields.map(\.english) == ["Site", "Reason"])
        #expect(errors.errors[1].value == "x")
        manual.site = RuntimeFixture.hq
        manual.reason = ManualOverride.reasonPresets(format)[0]
        let event = try manual.validated().get()
        #expect(event == .manualCheckIn(RuntimeFixture.hq, reason: "Beacon not detected"))
        try await fixture.at(0, event)
        manual.sent(at: RuntimeFixture.t0)
        var status = try await fixture.status(at: 2 * 3600 + 5 * 60)
        manual.settle(with: status, format: format)
        #expect(manual.phase == .accepted("Checked in at HQ at 09:00."))

        let today = TodayModel(status: status, format: format)
        #expect(today.headline == "Checked in at HQ")
        #expect(today.presences.map(\.state) == ["Checked in since 09:00"])
        #expect(today.presences.first?.manual == true)
        #expect(today.workedToday == "Worked today: 2 h 05 min")
        #expect(today.pending == "1 event waiting to be sent")
        #expect(today.lastSync.hasPrefix("Last sync failed 2 h ago: "))
        #expect(today.canCheckOut && today.canCheckIn)   // the annex is still offered

        // The check-out offers the open session only, preselected.
        fixture.uploader.outcome.value = DeliveryOutcome.delivered(status: 201)
        var checkOut = try #require(ManualOverride(.checkOut, format: format, status: status))
        #expect(checkOut.choices.map(\.name) == ["HQ"])
        #expect(checkOut.site == RuntimeFixture.hq)
        checkOut.reason = "Going home"
        try await fixture.at(3 * 3600, try checkOut.validated().get())
        checkOut.sent(at: RuntimeFixture.t0.addingTimeInterval(3 * 3600))
        try await fixture.runtime.drain()
        status = try await fixture.status(at: 3 * 3600 + 60)
        checkOut.settle(with: status, format: format)
        #expect(checkOut.phase == .accepted("Checked out of HQ at 12:00."))
        let after = TodayModel(status: status, format: format)
        #expect(after.headline == "Not checked in")
        #expect(after.workedToday == "Worked today: 3 h 00 min")
        #expect(after.pending == "All events sent")
        #expect(after.lastSync == "Last sync 1 min ago")
    }

    /// Motion history dates a late tap: a check-in offers the end of the walk in, preselected;
    /// a check-out offers the start of the walk out, for an employee who has already left.
    @Test func theSheetOffersTheTimeMotionHistoryShows() async throws {
        let fixture = try RuntimeFixture()
        func time(_ seconds: Double) -> Date { RuntimeFixture.t0.addingTimeInterval(seconds) }
        let seated = MotionSnapshot(at: time(600), activity: .stationary, walkingSince: time(100), walkEndedAt: time(160))
        var manual = try #require(ManualOverride(.checkIn, format: format, status: try await fixture.status(at: 600), motion: seated))
        #expect(manual.offeredTime == time(160) && manual.useOfferedTime)
        #expect(manual.offer(format: format) == "I arrived at 09:02 (when I stopped walking)")
        manual.site = RuntimeFixture.hq
        manual.reason = "Forgot to tap"
        let event = try manual.validated().get()
        #expect(event == .manualCheckIn(RuntimeFixture.hq, reason: "Forgot to tap", at: time(160)))
        try await fixture.at(600, event)
        manual.sent(at: time(600))
        manual.settle(with: try await fixture.status(at: 610), format: format)
        #expect(manual.phase == .accepted("Checked in at HQ at 09:02."))

        // Still walking, or a walk that ended moments ago: nothing to offer.
        let walking = MotionSnapshot(at: time(700), activity: .walking, walkingSince: time(650))
        #expect(ManualOverride(.checkIn, format: format, status: try await fixture.status(at: 700), motion: walking)?.offeredTime == nil)
        let justSat = MotionSnapshot(at: time(700), activity: .stationary, walkingSince: time(650), walkEndedAt: time(680))
        #expect(ManualOverride(.checkIn, format: format, status: try await fixture.status(at: 700), motion: justSat)?.offeredTime == nil)

        // The check-out: the walk out is offered, but only the employee knows they have left.
        let onTheBus = MotionSnapshot(at: time(4_000), activity: .automotive, walkingSince: time(3_360), walkEndedAt: time(3_600))
        var checkOut = try #require(ManualOverride(.checkOut, format: format, status: try await fixture.status(at: 4_000), motion: onTheBus))
        #expect(checkOut.offeredTime == time(3_360) && !checkOut.useOfferedTime)
        #expect(checkOut.offer(format: format) == "I already left, at 09:56 (when I started walking)")
        checkOut.useOfferedTime = true
        checkOut.reason = "Going home"
        try await fixture.at(4_000, try checkOut.validated().get())
        checkOut.sent(at: time(4_000))
        checkOut.settle(with: try await fixture.status(at: 4_010), format: format)
        #expect(checkOut.phase == .accepted("Checked out of HQ at 09:56."))
        #expect(try await fixture.status(at: 4_010).events.map(\.event.timestamp) == [time(160), time(3_360)])
    }

    /// Checked in by hand on the way out (a short visit): no walk began after the check-in, the
    /// one under way then went on, so the check-out offers the check-in's own time, and says so.
    /// A walk that had ended before the check-in offers nothing (the walk out went unrecorded).
    @Test func aCheckOutAfterCheckingInOnTheWayOutOffersTheCheckIn() async throws {
        let fixture = try RuntimeFixture()
        func time(_ seconds: Double) -> Date { RuntimeFixture.t0.addingTimeInterval(seconds) }
        try await fixture.at(600, .manualCheckIn(RuntimeFixture.hq, reason: "Forgot to tap", at: nil))
        let outside = MotionSnapshot(at: time(1_000), activity: .stationary, walkingSince: time(550), walkEndedAt: time(700))
        var checkOut = try #require(ManualOverride(.checkOut, format: format, status: try await fixture.status(at: 1_000), motion: outside))
        #expect(checkOut.offeredTime == time(600))
        #expect(checkOut.offer(format: format) == "I already left, at 09:10 (I was walking out when I checked in)")
        checkOut.useOfferedTime = true
        checkOut.reason = "Short visit"
        try await fixture.at(1_000, try checkOut.validated().get())
        #expect(try await fixture.status(at: 1_010).events.map(\.event.timestamp) == [time(600), time(600)])

        try await fixture.at(1_100, .manualCheckIn(RuntimeFixture.hq, reason: "Back", at: nil))
        let unrecorded = MotionSnapshot(at: time(1_500), activity: .stationary, walkingSince: time(1_000), walkEndedAt: time(1_050))
        #expect(ManualOverride(.checkOut, format: format, status: try await fixture.status(at: 1_500), motion: unrecorded)?.offeredTime == nil)
    }

    @Test func theEnginesRefusalIsShownWithItsReason() async throws {
        let fixture = try RuntimeFixture()
        var manual = try #require(ManualOverride(.checkIn, format: format, status: try await fixture.status(at: 0)))
        manual.site = RuntimeFixture.hq
        manual.reason = "Forgot my phone"
        // Another path checked in at HQ first (an automatic decision, a second tap).
        try await fixture.at(0, .manualCheckIn(RuntimeFixture.hq, reason: "first tap"))
        try await fixture.at(1, try manual.validated().get())
        manual.sent(at: RuntimeFixture.t0.addingTimeInterval(1))
        manual.settle(with: try await fixture.status(at: 2), format: format)
        guard case .rejected(let reason) = manual.phase else { Issue.record("expected a rejection, got \(manual.phase)"); return }
        #expect(reason.contains("refused"))
    }

    @Test func refusedEventsAndPermissionBlockersAreWarnings() async throws {
        let fixture = try RuntimeFixture()
        fixture.uploader.outcome.value = DeliveryOutcome.rejected(status: 422, detail: "Unprocessable: unknown site")
        try await fixture.at(0, .permissionsChanged(Permissions(location: .whenInUse)))
        try await fixture.at(1, .manualCheckIn(RuntimeFixture.annex, reason: "badge reader"))
        try await fixture.runtime.drain()
        let today = TodayModel(status: try await fixture.status(at: 60), format: format)
        #expect(today.refused == "1 event was refused by the server. Open Diagnostics and tell your administrator.")
        #expect(today.warnings.count == 1)
        #expect(today.warnings.first?.hasPrefix("Location access is 'While Using'") == true)
    }
}
