import AttendanceAppCore
import AttendanceModels
import Testing

/// `PermissionMonitor`: the separate reports of iOS become one snapshot, sent when complete and on
/// every change.
@Suite struct PermissionMonitorTests {
    @Test func nothingIsSentUntilLocationAndBackgroundRefreshAreKnown() {
        var monitor = PermissionMonitor()
        #expect(monitor.handle(.bluetooth(.poweredOff)) == nil)
        #expect(monitor.handle(.location(.always, precise: true)) == nil)
        let first = monitor.handle(.backgroundRefresh(available: false))
        #expect(
            first
                == Permissions(
                    location: .always, preciseLocation: true, bluetooth: .poweredOff, backgroundRefreshAvailable: false)
        )
    }

    @Test func bluetoothIsUnknownUntilAManagerReportsIt() {
        var monitor = PermissionMonitor()
        _ = monitor.handle(.backgroundRefresh(available: true))
        #expect(monitor.handle(.location(.whenInUse, precise: false))?.bluetooth == .unknown)
        #expect(monitor.handle(.bluetooth(.poweredOn))?.bluetooth == .poweredOn)
    }

    @Test func everyChangeIsSentAndTheSameSnapshotOnce() {
        var monitor = PermissionMonitor()
        _ = monitor.handle(.location(.always, precise: true))
        #expect(monitor.handle(.backgroundRefresh(available: true)) != nil)
        // The launch's authorization callback repeats what is known: nothing new to send.
        #expect(monitor.handle(.location(.always, precise: true)) == nil)
        #expect(monitor.handle(.backgroundRefresh(available: false))?.backgroundRefreshAvailable == false)
        #expect(monitor.handle(.location(.always, precise: false))?.preciseLocation == false)
        #expect(monitor.handle(.bluetooth(.unauthorized))?.bluetooth == .unauthorized)
        #expect(monitor.sent?.automaticDetectionBlockers.isEmpty == false)
    }
}
