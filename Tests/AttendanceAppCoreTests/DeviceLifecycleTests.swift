import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Testing

/// One test per row of `DeviceLifecycle`'s table (L1–L13).
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
}
