import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Testing

@Suite struct PermissionGuideTests {
    func guide(_ location: Permissions.Location, precise: Bool = true, bluetooth: Permissions.Bluetooth = .poweredOn, refresh: Bool = true,
               alwaysShown: Bool = false, notifications: PermissionSnapshot.Authorization = .authorized,
               motion: PermissionSnapshot.Authorization = .authorized) -> PermissionGuide {
        PermissionGuide(PermissionSnapshot(engine: Permissions(location: location, preciseLocation: precise, bluetooth: bluetooth,
                                                               backgroundRefreshAvailable: refresh),
                                           alwaysPromptAlreadyShown: alwaysShown, notifications: notifications, motion: motion))
    }

    func step(_ guide: PermissionGuide, _ id: PermissionGuide.Step.ID) -> PermissionGuide.Step? { guide.steps.first { $0.id == id } }

    @Test func everythingGrantedMeansAutomaticAttendanceWorks() {
        let guide = guide(.always)
        #expect(guide.automaticAttendanceWorks)
        #expect(guide.next == nil)
        #expect(guide.steps.allSatisfy { $0.status == .done })
        #expect(guide.headline.english.hasPrefix("Automatic attendance is on"))
    }

    @Test func locationIsAskedWhenInUseFirstThenAlwaysThenOnlySettingsCanHelp() {
        #expect(step(guide(.notDetermined), .location)?.action == .requestWhenInUse)
        let whenInUse = guide(.whenInUse)
        #expect(step(whenInUse, .location)?.action == .requestAlways)
        #expect(step(whenInUse, .location)?.explanation.english.contains("While Using the App") == true)
        #expect(!whenInUse.automaticAttendanceWorks)
        let promptUsed = guide(.whenInUse, alwaysShown: true)
        #expect(step(promptUsed, .location)?.status == .blocking)
        #expect(step(promptUsed, .location)?.action == .openSettings)
        #expect(step(guide(.denied), .location)?.action == .openSettings)
        #expect(step(guide(.restricted), .location)?.action == PermissionGuide.Action.none)
        #expect(guide(.denied).headline.english == "Automatic attendance needs: Location: Always.")
    }

    @Test func reducedAccuracyAndBluetoothOffBlockAndLinkToSettings() {
        let reduced = guide(.always, precise: false)
        #expect(step(reduced, .preciseLocation)?.status == .blocking)
        #expect(step(reduced, .preciseLocation)?.action == .openSettings)
        #expect(!reduced.automaticAttendanceWorks)
        let bluetoothOff = guide(.always, bluetooth: .poweredOff)
        #expect(step(bluetoothOff, .bluetooth)?.status == .blocking)
        #expect(bluetoothOff.next?.id == .bluetooth)
        #expect(step(guide(.always, bluetooth: .unauthorized), .bluetooth)?.action == .openSettings)
        // Not known yet: the step explains Bluetooth before iOS's prompt, which its action brings.
        let unknown = step(guide(.always, bluetooth: .unknown), .bluetooth)
        #expect(unknown?.action == .requestBluetooth && unknown?.status == .needed)
    }

    @Test func backgroundRefreshNotificationsAndMotionAreOptionalButExplained() {
        let guide = guide(.always, refresh: false, notifications: .denied, motion: .denied)
        #expect(guide.automaticAttendanceWorks)
        #expect(step(guide, .backgroundRefresh)?.status == .optional)
        #expect(step(guide, .backgroundRefresh)?.explanation.english.contains("Background App Refresh") == true)
        #expect(step(guide, .notifications)?.action == .openSettings)
        #expect(step(guide, .motion)?.status == .optional)
        #expect(step(self.guide(.always, notifications: .notDetermined), .notifications)?.action == .requestNotifications)
    }
}
