#if canImport(UserNotifications) && canImport(Darwin)
import AttendanceEngine
import AttendanceSync
import Foundation
import UserNotifications

/// The runtime's `Notifier`: local notifications for the manual check-in fallback. Tapping one
/// opens the Today screen's manual check-in (the category's action identifier says which).
public final class NotificationAdapter: Notifier, @unchecked Sendable {
    // @unchecked: UNUserNotificationCenter is documented thread-safe; no other state.
    public static let manualCheckInCategory = "MANUAL_CHECK_IN"
    public static let openManualCheckInAction = "OPEN_MANUAL_CHECK_IN"
    private let center = UNUserNotificationCenter.current()

    public init() {
        let open = UNNotificationAction(identifier: Self.openManualCheckInAction, title: "Check in by hand", options: [.foreground])
        center.setNotificationCategories([UNNotificationCategory(identifier: Self.manualCheckInCategory, actions: [open], intentIdentifiers: [])])
    }

    public func requestAuthorization() async -> Bool {
        (try? await center.requestAuthorization(options: [.alert, .sound])) ?? false
    }

    public func show(_ notification: LocalNotification) {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.categoryIdentifier = Self.manualCheckInCategory
        content.interruptionLevel = .timeSensitive
        // One pending prompt at a time: a newer one replaces it.
        center.add(UNNotificationRequest(identifier: notification.kind.rawValue, content: content, trigger: nil))
    }
}
#endif
