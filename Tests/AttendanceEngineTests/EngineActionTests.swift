import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// Transitions as lines: given state, event and time, expect the actions.
@Suite struct EngineActionTests {
    let region = BeaconRegion(uuid: EngineDriver.uuid)

    func sample(_ rssi: Int, major: UInt16 = 1) -> EngineEvent {
        .beaconsRanged([BeaconSample(beacon: BeaconIdentity(uuid: EngineDriver.uuid, major: major, minor: 1), rssi: rssi)], region: region)
    }

    /// The resume reminders the engine schedules 3, 6 and 9 h (`resumeReminderHours` ×
    /// 1…`resumeReminderCount`) after `seconds`.
    static func reminders(after seconds: Double) -> [EngineAction] {
        (1...3).map { sequence in
            .notify(LocalNotification(kind: .resumeReminder, title: LocalizedText("Automatic check-in is paused"),
                                      body: LocalizedText(
                                          "Beacon Attendance has not run for %@. If you closed it from the app switcher, "
                                              + "iPhone won't start it at work. Open it to resume automatic check-in.",
                                          .text(LocalizedText("%lld hours", .count(3 * sequence)))),
                                      deliverAt: EngineDriver.time(seconds + Double(3 * 3_600 * sequence)), sequence: sequence))
        }
    }

    /// Each time the app runs the reminder moves 3 h ahead, at most once every 15 min; never
    /// without Always access, never when turned off.
    @Test func theResumeReminderIsPushedBackWhileTheAppRuns() {
        var engine = Engine()
        #expect(engine.handle(.networkReachable, now: EngineDriver.time(0)) == Self.reminders(after: 0) + [.drainOutbox])
        #expect(engine.handle(.networkReachable, now: EngineDriver.time(600)) == [.drainOutbox])
        #expect(engine.handle(.networkReachable, now: EngineDriver.time(900)) == Self.reminders(after: 900) + [.drainOutbox])
        #expect(engine.handle(.networkReachable, now: EngineDriver.time(20_000)) == Self.reminders(after: 20_000) + [.drainOutbox])

        var whileUsing = Engine()
        _ = whileUsing.handle(.permissionsChanged(Permissions(location: .whenInUse)), now: EngineDriver.time(0))
        #expect(whileUsing.handle(.networkReachable, now: EngineDriver.time(1)) == [.drainOutbox])

        var configuration = Configuration()
        configuration.resumeReminderHours = 0
        var off = Engine(configuration: configuration)
        #expect(off.handle(.networkReachable, now: EngineDriver.time(0)) == [.drainOutbox])
        configuration.resumeReminderHours = 0.5
        configuration.resumeReminderCount = 9
        #expect(configuration.validationErrors().map(\.field) == ["resumeReminderHours", "resumeReminderCount"])
        #expect(Self.reminders(after: 0).map { action -> String in
            if case .notify(let notification) = action { return notification.identifier } else { return "" }
        } == ["resumeReminder", "resumeReminder.2", "resumeReminder.3"])
    }

    /// The arrival reminder iOS holds for a UUID (shown by iOS on entering its region).
    static func arrivalReminder(_ uuid: UUID = EngineDriver.uuid) -> EngineAction {
        .notify(LocalNotification(
            kind: .arrivalReminder, title: LocalizedText("Arrived at work?"),
            body: LocalizedText(
                "Beacon Attendance did not start when you arrived, so it has not checked you in. If you closed it "
                    + "from the app switcher, iPhone won't start it at work. Open it to check in."),
            region: BeaconRegion(uuid: uuid)))
    }

    /// iOS holds one arrival reminder per UUID and shows it on each entry, even after a force-quit.
    /// Each launch schedules it; each region entry the app sees schedules it again, which
    /// withdraws the one iOS has just shown. Never without Always access, never when turned off.
    @Test func theArrivalReminderIsArmedAtLaunchAndWithdrawnOnEachEntryTheAppSees() {
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(major: 2), SiteConfiguration(major: 1)]
        var engine = Engine(configuration: configuration)
        let launch = engine.handle(.appLaunched(.userOpened), now: EngineDriver.time(0))
        #expect(launch.filter { if case .notify(let n) = $0 { return n.kind == .arrivalReminder } else { return false } } == [Self.arrivalReminder()])
        let entry = engine.handle(.regionEntered(BeaconRegion(uuid: EngineDriver.uuid, major: 2)), now: EngineDriver.time(60))
        #expect(entry.contains(Self.arrivalReminder()))
        #expect(!engine.handle(.regionExited(BeaconRegion(uuid: EngineDriver.uuid, major: 2)), now: EngineDriver.time(600)).contains(Self.arrivalReminder()))
        // A region the app does not monitor (left over from an older configuration) is not one.
        let other = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        #expect(!engine.handle(.regionEntered(BeaconRegion(uuid: other)), now: EngineDriver.time(700)).contains(Self.arrivalReminder(other)))
        let held = LocalNotification(kind: .arrivalReminder, title: LocalizedText(""), body: LocalizedText(""), region: BeaconRegion(uuid: EngineDriver.uuid, major: 7))
        #expect(held.identifier == "arrivalReminder.\(EngineDriver.uuid.uuidString).7")

        // Downgraded to When In Use, the app could no longer withdraw it: it is withdrawn for good.
        let withdrawal = EngineAction.withdrawNotification("arrivalReminder.\(EngineDriver.uuid.uuidString)")
        let downgraded = engine.handle(.permissionsChanged(Permissions(location: .whenInUse)), now: EngineDriver.time(800))
        #expect(downgraded.contains(withdrawal) && !downgraded.contains(Self.arrivalReminder()))
        #expect(engine.handle(.permissionsChanged(Permissions(location: .always)), now: EngineDriver.time(900)).contains(Self.arrivalReminder()))
        // Turned off by a new configuration: withdrawn too.
        var quiet = configuration
        quiet.arrivalReminders = false
        let applied = engine.handle(.configurationUpdated(quiet), now: EngineDriver.time(1_000))
        #expect(applied.contains(withdrawal) && !applied.contains(Self.arrivalReminder()))
        #expect(!engine.handle(.configurationUpdated(configuration), now: EngineDriver.time(1_100)).contains(withdrawal))

        var whileUsing = Engine(configuration: configuration)
        _ = whileUsing.handle(.permissionsChanged(Permissions(location: .whenInUse)), now: EngineDriver.time(0))
        #expect(!whileUsing.handle(.appLaunched(.userOpened), now: EngineDriver.time(1)).contains(Self.arrivalReminder()))
        // Always access given later: detection is restored, and the reminder armed with it.
        #expect(whileUsing.handle(.permissionsChanged(Permissions(location: .always)), now: EngineDriver.time(2)).contains(Self.arrivalReminder()))

        configuration.arrivalReminders = false
        var off = Engine(configuration: configuration)
        #expect(!off.handle(.appLaunched(.userOpened), now: EngineDriver.time(0)).contains(Self.arrivalReminder()))
        #expect(!off.handle(.regionEntered(BeaconRegion(uuid: EngineDriver.uuid, major: 1)), now: EngineDriver.time(60)).contains(Self.arrivalReminder()))
    }

    @Test func regionEntryStartsABoundedRangingWindowInBackgroundTime() {
        var engine = Engine()
        let actions = engine.handle(.regionEntered(region), now: EngineDriver.time(0))
        #expect(actions == [
            .beginBackgroundTask,
            .startRanging(region),
            .queryMotion(lookbackMinutes: 2),
            .startBackgroundLocation,
            .scheduleTimer(.nextDecision, at: EngineDriver.time(8)),
            Self.arrivalReminder(),
        ] + Self.reminders(after: 0) + [.drainOutbox])
    }

    @Test func confirmationEnqueuesStopsRangingAndDrains() {
        var engine = Engine()
        _ = engine.handle(.regionEntered(region), now: EngineDriver.time(0))
        for second in 1...3 { #expect(engine.handle(sample(-60), now: EngineDriver.time(Double(second))).contains { if case .recordTelemetry = $0 { return true } else { return false } } == (second == 1)) }
        let actions = engine.handle(sample(-60), now: EngineDriver.time(4))
        guard case .enqueue(let event) = actions.first else { Issue.record("expected the check-in first, got \(actions)"); return }
        #expect(event.kind == .checkIn)
        #expect(event.timestamp == EngineDriver.time(0))
        #expect(event.sessionKey == SessionKey.derive(user: "local-user", device: "local-device", site: SiteBeacon(major: 1), checkIn: EngineDriver.time(0)))
        #expect(Array(actions.suffix(5)) == [.stopRanging(region), .endBackgroundTask, .stopBackgroundLocation, .cancelTimer(.nextDecision), .drainOutbox])
    }

    @Test func launchMonitorsRequestsStateAndDrains() {
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(major: 2), SiteConfiguration(major: 1)]
        var engine = Engine(configuration: configuration)
        let regions = [BeaconRegion(uuid: EngineDriver.uuid, major: 1), BeaconRegion(uuid: EngineDriver.uuid, major: 2)]
        #expect(engine.handle(.appLaunched(.afterReboot), now: EngineDriver.time(0))
            == [.monitorRegions(regions), .requestRegionState(regions[0]), .requestRegionState(regions[1]), Self.arrivalReminder()]
                + Self.reminders(after: 0) + [.drainOutbox])
        configuration.regionMonitoring = .uuidWide
        #expect(Engine(configuration: configuration).monitoredRegions == [region])
    }

    /// Killed mid-window and relaunched: the new process is not ranging and has no timer or
    /// background task, so the restored engine starts them again instead of assuming them.
    @Test func relaunchDuringAWindowRestartsRangingBackgroundTimeAndTheTimer() {
        var engine = Engine()
        _ = engine.handle(.regionEntered(region), now: EngineDriver.time(0))
        #expect(engine.isRanging)
        let actions = engine.handle(.appLaunched(.regionEvent), now: EngineDriver.time(3))
        #expect(actions.contains(.beginBackgroundTask))
        #expect(actions.contains(.startRanging(region)))
        #expect(actions.contains(.scheduleTimer(.nextDecision, at: EngineDriver.time(8))))
        #expect(!actions.contains(.stopRanging(region)))
    }

    @Test func manualCheckInAndOutCarryAReasonAndAreMarkedManual() {
        var driver = EngineDriver()
        let site = SiteBeacon(major: 4)
        driver.send(.manualCheckIn(site, reason: "beacon battery is dead"), at: 0)
        // Ranging that never hears the site does not undo a manual check-in.
        driver.ranged(major: 1, rssi: 0, over: 1..<400)
        driver.send(.manualCheckOut(nil, reason: "going home"), at: 500)
        let events = driver.events
        #expect(events.map(\.kind) == [.checkIn, .checkOut])
        #expect(events.allSatisfy { $0.source == .manual })
        #expect(events.map(\.reason) == ["beacon battery is dead", "going home"])
        #expect(events.map(\.timestamp) == [EngineDriver.time(0), EngineDriver.time(500)])
        #expect(events[0].sessionKey == events[1].sessionKey)
    }

    /// The employee taps late and dates the tap back (the sheet's offered time): the events carry
    /// that time, and one session key; a time in the future, too far back, before the session's
    /// check-in or before the last check-out is refused, naming `at` and what was expected.
    @Test func aManualCheckInAndOutCanBeDatedBackWithinLimits() {
        var driver = EngineDriver()
        let site = SiteBeacon(major: 4)
        driver.send(.manualCheckIn(site, reason: "sat down at 9", at: EngineDriver.time(-420)), at: 0)
        driver.send(.manualCheckOut(site, reason: "on the bus", at: EngineDriver.time(3_000)), at: 3_500)
        #expect(driver.events.map(\.timestamp) == [EngineDriver.time(-420), EngineDriver.time(3_000)])
        #expect(driver.events.map(\.source) == [.manual, .manual])
        #expect(driver.events[0].sessionKey == driver.events[1].sessionKey)

        driver.send(.manualCheckIn(site, reason: "future", at: EngineDriver.time(4_000)), at: 3_600)
        driver.send(.manualCheckIn(site, reason: "too early", at: EngineDriver.time(3_600 - 3_700)), at: 3_600)
        driver.send(.manualCheckIn(site, reason: "overlaps", at: EngineDriver.time(2_900)), at: 3_600)
        driver.send(.manualCheckIn(site, reason: "back again", at: EngineDriver.time(3_300)), at: 3_600)
        driver.send(.manualCheckOut(nil, reason: "before the check-in", at: EngineDriver.time(3_200)), at: 3_700)
        let rejections = driver.telemetry.filter { $0.kind == .manualRejected }.map(\.detail)
        #expect(rejections == [
            "manual check-in at \(site) refused: 'at' is 2026-11-22T10:06:40Z; expected a time that has passed (now 2026-11-22T10:00:00Z)",
            "manual check-in at \(site) refused: 'at' is 2026-11-22T08:58:20Z; expected at most 60 min before now (2026-11-22T10:00:00Z, manualBackdateMaxMinutes)",
            "manual check-in at \(site) refused: 'at' is 2026-11-22T09:48:20Z; expected no earlier than the last check-out at 2026-11-22T09:50:00Z",
            "manual check-out refused: 'at' is 2026-11-22T09:53:20Z; expected no earlier than the check-in at 2026-11-22T09:55:00Z",
        ])
        #expect(driver.events.map(\.kind) == [.checkIn, .checkOut, .checkIn])
        #expect(driver.events.last?.timestamp == EngineDriver.time(3_300))

        var configuration = Configuration()
        configuration.manualBackdateMaxMinutes = 721
        #expect(configuration.validationErrors().map(\.field) == ["manualBackdateMaxMinutes"])
    }

    @Test func manualRequestsThatCannotBeHonouredAreRejectedVisibly() {
        var driver = EngineDriver()
        driver.send(.manualCheckOut(nil, reason: "leaving"), at: 0)
        driver.send(.manualCheckIn(SiteBeacon(major: 4), reason: "  "), at: 1)
        driver.send(.manualCheckIn(SiteBeacon(major: 4), reason: "here"), at: 2)
        driver.send(.manualCheckIn(SiteBeacon(major: 4), reason: "here again"), at: 3)
        let rejections = driver.telemetry.filter { $0.kind == .manualRejected }.map(\.detail)
        #expect(rejections.count == 3)
        #expect(rejections[0].contains("not checked in"))
        #expect(rejections[1].contains("a reason is required"))
        #expect(rejections[2].contains("already checked in since 2026-11-22T09:00:02Z"))
        #expect(driver.events(.checkIn).count == 1)
    }

    @Test func afterAManualCheckOutNothingChecksInAgainUntilTheNextArrival() {
        var driver = EngineDriver()
        driver.send(.regionEntered(region), at: 0)
        driver.ranged(rssi: -60, over: 0..<100)
        driver.send(.manualCheckOut(SiteBeacon(major: 1), reason: "leaving early"), at: 100)
        driver.ranged(rssi: -60, over: 100..<200)                  // still near the door
        driver.send(.regionStateDetermined(region, .inside), at: 150)
        #expect(driver.events.map(\.kind) == [.checkIn, .checkOut])
        driver.send(.regionExited(region), at: 230)
        driver.send(.regionEntered(region), at: 5000)             // back the next shift
        driver.ranged(rssi: -60, over: 5000..<5010)
        #expect(driver.events.map(\.kind) == [.checkIn, .checkOut, .checkIn])
    }

    @Test func blockedDetectionPromptsForAManualCheckInAtMostEveryFourHours() {
        var driver = EngineDriver()
        driver.send(.permissionsChanged(Permissions(location: .whenInUse)), at: 0)
        #expect(driver.notifications.count == 1)
        #expect(driver.notifications[0].kind == .manualCheckInPrompt)
        #expect(driver.notifications[0].body.english.contains("'While Using'"))
        driver.send(.permissionsChanged(Permissions(location: .whenInUse, bluetooth: .poweredOff)), at: 60)
        driver.send(.appLaunched(.userOpened), at: 3600)
        #expect(driver.notifications.count == 1)
        #expect(driver.telemetry.filter { $0.kind == .detectionUnavailable }.count == 2)
        driver.send(.appLaunched(.userOpened), at: 4 * 3600 + 1)
        #expect(driver.notifications.count == 2)
        #expect(driver.notifications[1].body.english.contains("Bluetooth is off"))
        driver.send(.permissionsChanged(Permissions()), at: 5 * 3600)
        #expect(driver.actions(at: 5 * 3600).contains(.monitorRegions([region])))
        #expect(driver.telemetry.last?.kind == .detectionRestored)
    }

    @Test func precisionAndBluetoothBlockersAreNamed() {
        #expect(Permissions().automaticDetectionBlockers.isEmpty)
        #expect(Permissions(preciseLocation: false).automaticDetectionBlockers.first?.contains("Precise Location") == true)
        #expect(Permissions(location: .denied, bluetooth: .unauthorized).automaticDetectionBlockers.count == 2)
    }

    @Test func aGeofenceExitSettlesAPendingExitAtOnce() {
        var driver = EngineDriver()
        driver.send(.regionEntered(region), at: 0)
        driver.ranged(rssi: -60, over: 0..<60)
        driver.send(.regionExited(region), at: 89)
        driver.send(.geofenceExited(SiteBeacon(major: 1)), at: 200)
        #expect(driver.events(.checkOut).map(\.timestamp) == [EngineDriver.time(59)])
        #expect(driver.decidedAt(.checkOut) == [EngineDriver.time(200)])
        #expect(driver.events(.checkOut).first?.reason == "geofenceExit")
    }

    @Test func aGeofenceEntryOpensAWindow() {
        var driver = EngineDriver()
        driver.send(.geofenceEntered(SiteBeacon(major: 1)), at: 0)
        #expect(driver.actions(at: 0).contains(.startRanging(region)))
        driver.ranged(rssi: -58, over: 1..<6)
        #expect(driver.events(.checkIn).map(\.timestamp) == [EngineDriver.time(1)])
    }

    @Test func anInvalidRemoteConfigurationIsRejectedAndTheOldOneKept() {
        var driver = EngineDriver()
        var bad = Configuration()
        bad.softExitGraceSeconds = 5
        driver.send(.configurationUpdated(bad), at: 0)
        #expect(driver.engine.configuration == Configuration())
        #expect(driver.telemetry.last?.kind == .configurationRejected)
        #expect(driver.telemetry.last?.detail.contains("softExitGraceSeconds") == true)
        var good = Configuration()
        good.sites = [SiteConfiguration(major: 3)]
        driver.send(.configurationUpdated(good), at: 1)
        #expect(driver.engine.configuration == good)
        #expect(driver.actions(at: 1).contains(.monitorRegions([BeaconRegion(uuid: EngineDriver.uuid, major: 3)])))
    }

    @Test func uploadReportsAreKeptForTheTodayScreen() {
        var engine = Engine()
        let report = UploadReport(at: EngineDriver.time(5), delivered: 3, pending: 1, deadLetters: 0, error: "timeout")
        let actions = engine.handle(.uploadFinished(report), now: EngineDriver.time(5))
        #expect(engine.lastUpload == report)
        #expect(actions == [.recordTelemetry(TelemetryRecord(at: EngineDriver.time(5), kind: .upload, site: nil,
                                                            detail: "delivered 3, pending 1, dead letters 0, error: timeout"))]
                           + Self.reminders(after: 5))
        #expect(engine.handle(.networkReachable, now: EngineDriver.time(6)) == [.drainOutbox])
    }
}
