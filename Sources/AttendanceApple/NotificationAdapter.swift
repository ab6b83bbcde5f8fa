#if canImport(UserNotifications) && canImport(Darwin)
import AttendanceEngine
import AttendanceSync
import Foundation
import UserNotifications

/// The runtime's `Notifier`: local notifications for the manual check-in fallback (tapping one
/// opens the Today screen's manual check-in; the category's action identifier says which) and
/// the resume reminder after a force-quit (tapping it opens the app, which is all it takes).
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
        switch notification.kind {
        case .manualCheckInPrompt:
            content.categoryIdentifier = Self.manualCheckInCategory
            content.interruptionLevel = .timeSensitive
        case .resumeReminder:
            // Quiet: it waits in Notification Centre (no sound, no lit screen at night). The app
            // is running now, so a reminder shown earlier is out of date.
            content.interruptionLevel = .passive
            center.removeDeliveredNotifications(withIdentifiers: [notification.identifier])
        }
        let trigger = notification.deliverAt.map {
            UNTimeIntervalNotificationTrigger(timeInterval: max(1, $0.timeIntervalSinceNow), repeats: false)
        }
        // One pending notification per kind and sequence: a newer one replaces it.
        center.add(UNNotificationRequest(identifier: notification.identifier, content: content, trigger: trigger))
    }
}
#endif
