import AttendanceAppCore
import AttendanceModels
import Testing

/// `PermissionMonitor`: the separate reports of iOS become one snapshot; the engine gets its part
/// when complete and on every change of it, the screens get the whole on every change.
@Suite struct PermissionMonitorTests {
    @Test func nothingGoesToTheEngineUntilLocationAndBackgroundRefreshAreKnown() {
        var monitor = PermissionMonitor()
        #expect(monitor.handle(.bluetooth(.poweredOff)).engine == nil)
        #expect(monitor.handle(.location(.always, precise: true)).engine == nil)
        let first = monitor.handle(.backgroundRefresh(available: false)).engine
        #expect(
            first
                == Permissions(
                    location: .always, preciseLocation: true, bluetooth: .poweredOff, backgroundRefreshAvailable: false)
        )
    }

    @Test func bluetoothIsUnknownUntilAManagerReportsIt() {
        var monitor = PermissionMonitor()
        _ = monitor.handle(.backgroundRefresh(available: true))
        #expect(monitor.handle(.location(.whenInUse, precise: false)).engine?.bluetooth == .unknown)
        #expect(monitor.handle(.bluetooth(.poweredOn)).engine?.bluetooth == .poweredOn)
    }

    @Test func everyChangeGoesToTheEngineAndTheSameSnapshotOnce() {
        var monitor = PermissionMonitor()
        _ = monitor.handle(.location(.always, precise: true))
        #expect(monitor.handle(.backgroundRefresh(available: true)).engine != nil)
        // The launch's authorization callback repeats what is known: nothing new to send.
        let repeated = monitor.handle(.location(.always, precise: true))
        #expect(repeated.engine == nil)
        #expect(repeated.screens == nil)
        #expect(monitor.handle(.backgroundRefresh(available: false)).engine?.backgroundRefreshAvailable == false)
        #expect(monitor.handle(.location(.always, precise: false)).engine?.preciseLocation == false)
        #expect(monitor.handle(.bluetooth(.unauthorized)).engine?.bluetooth == .unauthorized)
        #expect(monitor.sent?.automaticDetectionBlockers.isEmpty == false)
    }

    @Test func motionAndNotificationsReachTheScreensNotTheEngine() {
        var monitor = PermissionMonitor()
        _ = monitor.handle(.location(.always, precise: true))
        _ = monitor.handle(.backgroundRefresh(available: true))
        let motion = monitor.handle(.motion(.denied))
        #expect(motion.engine == nil)
        #expect(motion.screens?.motion == .denied)
        let notifications = monitor.handle(.notifications(.authorized))
        #expect(notifications.engine == nil)
        #expect(notifications.screens?.notifications == .authorized)
        #expect(notifications.screens?.motion == .denied)
        // Reported again unchanged (the app re-reads both on every return to the foreground).
        #expect(monitor.handle(.notifications(.authorized)).screens == nil)
        #expect(monitor.handle(.motion(.denied)).screens == nil)
    }

    @Test func theScreensSeeEveryPartFromTheFirstReport() {
        var monitor = PermissionMonitor()
        #expect(monitor.snapshot.engine.location == .notDetermined)
        #expect(monitor.snapshot.engine.bluetooth == .unknown)
        #expect(monitor.snapshot.motion == .notDetermined)
        // Location alone is not yet enough for the engine, but the screens show it at once.
        let location = monitor.handle(.location(.whenInUse, precise: true))
        #expect(location.engine == nil)
        #expect(location.screens?.engine.location == .whenInUse)
        let engineChange = monitor.handle(.backgroundRefresh(available: false))
        #expect(engineChange.screens == monitor.snapshot)
        #expect(engineChange.engine == monitor.snapshot.engine)
    }

    @Test func theAlwaysPromptIsShownOnce() {
        var monitor = PermissionMonitor()
        #expect(monitor.handle(.alwaysPromptShown).screens?.alwaysPromptAlreadyShown == true)
        #expect(monitor.handle(.alwaysPromptShown).screens == nil)
    }
}
