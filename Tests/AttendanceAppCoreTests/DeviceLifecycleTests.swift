import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Testing

/// One test per row of `DeviceLifecycle`'s table (L1–L23).
@Suite struct DeviceLifecycleTests {
    let region = BeaconRegion(site: SiteBeacon(major: 1))
    var entered: DeviceInput { .engine(.regionEntered(region)) }

    func launching(held: [DeviceInput] = []) -> DeviceLifecycle {
        var lifecycle = DeviceLifecycle()
        _ = lifecycle.receive(.launch(.userOpened))
        for input in held { _ = lifecycle.receive(input) }
        return lifecycle
    }

    func running() -> DeviceLifecycle {
        var lifecycle = launching()
        _ = lifecycle.runtimeStarted(enrolled: true)
        return lifecycle
    }

    @Test func l1ALaunchStartsTheRuntime() {
        var lifecycle = DeviceLifecycle()
        #expect(lifecycle.receive(.launch(.afterReboot)) == [.startRuntime(.afterReboot)])
        #expect(lifecycle.state == .launching(held: []))
    }

    @Test func l2ABackgroundRefreshFirstLaunchesForItAndWaits() {
        var lifecycle = DeviceLifecycle()
        #expect(lifecycle.receive(.backgroundRefresh) == [.startRuntime(.backgroundRefresh)])
        #expect(lifecycle.state == .launching(held: [.backgroundRefresh]))
    }

    @Test func l3ARegionEventBeforeAnyLaunchLaunchesForARegionEventAndWaits() {
        var lifecycle = DeviceLifecycle()
        #expect(lifecycle.receive(entered) == [.startRuntime(.regionEvent)])
        #expect(lifecycle.state == .launching(held: [entered]))
        var woken = DeviceLifecycle()
        #expect(woken.receive(.engine(.locationWake)) == [.startRuntime(.locationEvent)])
        var timer = DeviceLifecycle()
        #expect(timer.receive(.timer("engine")) == [.startRuntime(.userOpened)])
    }

    @Test func l4ASecondLaunchWhileLaunchingDoesNothing() {
        var lifecycle = launching()
        #expect(lifecycle.receive(.launch(.regionEvent)).isEmpty)
        #expect(lifecycle.state == .launching(held: []))
    }

    @Test func l5InputsDuringTheLaunchAreHeldInOrder() {
        var lifecycle = launching()
        #expect(lifecycle.receive(entered).isEmpty)
        #expect(lifecycle.receive(.networkReachable).isEmpty)
        #expect(lifecycle.state == .launching(held: [entered, .networkReachable]))
    }

    @Test func l6AnEnrolledLaunchDeliversWhatWasHeldInOrder() {
        var lifecycle = launching(held: [entered, .backgroundRefresh, .timer("delivery")])
        #expect(
            lifecycle.runtimeStarted(enrolled: true) == [
                .deliver(entered), .refreshConfiguration, .deliver(.drain), .deliver(.timer("delivery")),
            ])
        #expect(lifecycle.state == .running)
    }

    @Test func l7WithoutEnrollmentWhatWasHeldIsSetAside() {
        var lifecycle = launching(held: [entered])
        #expect(lifecycle.runtimeStarted(enrolled: false) == [.setAside(entered)])
        #expect(lifecycle.state == .notEnrolled)
    }

    @Test func l8AFailedLaunchKeepsWhatWasHeldForTheNextTry() {
        var lifecycle = launching(held: [entered])
        lifecycle.runtimeFailed()
        #expect(lifecycle.state == .starting(held: [entered]))
        // The next input tries again, asked for by the oldest held one, which stays first.
        #expect(lifecycle.receive(.networkReachable) == [.startRuntime(.regionEvent)])
        #expect(lifecycle.state == .launching(held: [entered, .networkReachable]))
        #expect(lifecycle.runtimeStarted(enrolled: true) == [.deliver(entered), .deliver(.networkReachable)])
    }

    @Test func l9ALaunchInALiveProcessIsNotANewProcess() {
        var lifecycle = running()
        #expect(lifecycle.receive(.launch(.backgroundRefresh)).isEmpty)
        #expect(lifecycle.state == .running)
    }

    @Test func l10ABackgroundRefreshRefreshesAndDrains() {
        var lifecycle = running()
        #expect(lifecycle.receive(.backgroundRefresh) == [.refreshConfiguration, .deliver(.drain)])
    }

    @Test func l11RunningEveryOtherInputIsDelivered() {
        var lifecycle = running()
        for input: DeviceInput in [entered, .timer("engine"), .drain, .networkReachable] {
            #expect(lifecycle.receive(input) == [.deliver(input)])
        }
        #expect(lifecycle.state == .running)
    }

    @Test func l12NotEnrolledInputsAreSetAside() {
        var lifecycle = launching()
        _ = lifecycle.runtimeStarted(enrolled: false)
        #expect(lifecycle.receive(entered) == [.setAside(entered)])
        #expect(lifecycle.receive(.launch(.userOpened)) == [.setAside(.launch(.userOpened))])
        #expect(lifecycle.state == .notEnrolled)
    }

    @Test func l13EnrollingRunsAndDeliversWhatWasHeld() {
        var notEnrolled = launching()
        _ = notEnrolled.runtimeStarted(enrolled: false)
        #expect(notEnrolled.enrolled().isEmpty)
        #expect(notEnrolled.state == .running)
        var held = launching(held: [entered])
        #expect(held.enrolled() == [.deliver(entered)])
        // The launch that was under way finishes into a running process: nothing twice.
        #expect(held.runtimeStarted(enrolled: true).isEmpty)
        #expect(held.state == .running)
    }

    // MARK: - Launched in the background for a reason iOS does not say (L14–L16)

    func identifying(held: [DeviceInput] = []) -> DeviceLifecycle {
        var lifecycle = DeviceLifecycle()
        _ = lifecycle.receive(.launchedInBackground)
        for input in held { _ = lifecycle.receive(input) }
        return lifecycle
    }

    @Test func l14ABackgroundLaunchWaitsForItsReason() {
        var lifecycle = DeviceLifecycle()
        #expect(lifecycle.receive(.launchedInBackground).isEmpty)
        #expect(lifecycle.state == .identifying(held: []))
    }

    @Test func l15TheFirstInputThatNamesAReasonLaunchesWithIt() {
        var region = identifying(held: [.networkReachable])
        #expect(region.receive(entered) == [.startRuntime(.regionEvent)])
        #expect(region.state == .launching(held: [.networkReachable, entered]))
        var upload = identifying()
        #expect(upload.receive(.drain) == [.startRuntime(.backgroundUpload)])
        var opened = identifying()
        #expect(opened.receive(.launch(.bluetoothEvent)) == [.startRuntime(.bluetoothEvent)])
        #expect(opened.state == .launching(held: []))
        var refresh = identifying()
        #expect(refresh.receive(.backgroundRefresh) == [.startRuntime(.backgroundRefresh)])
        var location = identifying()
        #expect(location.receive(.engine(.geofenceEntered(SiteBeacon(major: 1)))) == [.startRuntime(.locationEvent)])
    }

    @Test func l16InputsThatNameNoReasonAreHeld() {
        var lifecycle = identifying()
        let permissions = DeviceInput.engine(.permissionsChanged(Permissions(location: .always)))
        #expect(lifecycle.receive(permissions).isEmpty)
        #expect(lifecycle.receive(.networkReachable).isEmpty)
        #expect(lifecycle.state == .identifying(held: [permissions, .networkReachable]))
        #expect(lifecycle.receive(entered) == [.startRuntime(.regionEvent)])
        #expect(lifecycle.runtimeStarted(enrolled: true) == [
            .deliver(permissions), .deliver(.networkReachable), .deliver(entered),
        ])
    }

    // MARK: - Before the first unlock after a reboot (L17–L22)

    func locked(held: [DeviceInput] = []) -> DeviceLifecycle {
        var lifecycle = launching(held: held)
        _ = lifecycle.runtimeLocked()
        return lifecycle
    }

    @Test func l17ALockedLaunchJournalsItsRegionEventsAndHoldsTheRest() {
        let wake = DeviceInput.engine(.locationWake)
        var lifecycle = launching(held: [entered, .networkReachable, wake])
        #expect(lifecycle.runtimeLocked() == [.journal(entered), .journal(wake)])
        #expect(lifecycle.state == .locked(held: [.networkReachable]))
    }

    @Test func l18RegionAndLocationEventsWhileLockedGoToTheJournal() {
        var lifecycle = locked()
        let exited = DeviceInput.engine(.regionExited(region))
        let state = DeviceInput.engine(.regionStateDetermined(region, .inside))
        for input in [exited, state, .engine(.geofenceExited(SiteBeacon(major: 1)))] {
            #expect(lifecycle.receive(input) == [.journal(input)])
        }
        #expect(lifecycle.state == .locked(held: []))
    }

    @Test func l19TheFirstUnlockLaunchesAgainWithWhatWasHeld() {
        var lifecycle = locked(held: [.networkReachable])
        #expect(lifecycle.receive(.protectedDataAvailable) == [.startRuntime(.afterReboot)])
        #expect(lifecycle.state == .launching(held: [.networkReachable]))
        #expect(lifecycle.runtimeStarted(enrolled: true) == [.deliver(.networkReachable)])
    }

    @Test func l20AnEventTheJournalCouldNotTakeWaitsInMemory() {
        var lifecycle = locked()
        lifecycle.journalFailed(entered)
        #expect(lifecycle.state == .locked(held: [entered]))
        #expect(lifecycle.receive(.protectedDataAvailable) == [.startRuntime(.afterReboot)])
        #expect(lifecycle.runtimeStarted(enrolled: true) == [.deliver(entered)])
        // Outside `locked` there is nothing to keep it for.
        var running = running()
        running.journalFailed(entered)
        #expect(running.state == .running)
    }

    @Test func l21ALaunchWhileLockedDoesNothing() {
        var lifecycle = locked()
        #expect(lifecycle.receive(.launch(.userOpened)).isEmpty)
        #expect(lifecycle.receive(.launchedInBackground).isEmpty)
        #expect(lifecycle.state == .locked(held: []))
    }

    @Test func l22EveryOtherInputWhileLockedIsHeld() {
        var lifecycle = locked()
        for input: DeviceInput in [.drain, .timer("engine"), .backgroundRefresh] {
            #expect(lifecycle.receive(input).isEmpty)
        }
        #expect(lifecycle.state == .locked(held: [.drain, .timer("engine"), .backgroundRefresh]))
    }

    @Test func l23AnUnlockOrABackgroundLaunchChangesNothingElsewhere() {
        var starting = DeviceLifecycle()
        #expect(starting.receive(.protectedDataAvailable).isEmpty)
        #expect(starting.state == .starting(held: []))
        var waiting = identifying()
        #expect(waiting.receive(.protectedDataAvailable).isEmpty)
        #expect(waiting.receive(.launchedInBackground).isEmpty)
        #expect(waiting.state == .identifying(held: []))
        var launching = launching()
        #expect(launching.receive(.protectedDataAvailable).isEmpty)
        #expect(launching.state == .launching(held: []))
        var running = running()
        #expect(running.receive(.protectedDataAvailable).isEmpty)
        #expect(running.receive(.launchedInBackground).isEmpty)
        #expect(running.state == .running)
    }
}
