import Foundation

/// Where tapping one of the app's notifications leads, decided here; the notification adapter
/// (the `UNUserNotificationCenter` delegate) only translates.
public enum NotificationRoute: Hashable, Sendable {
    /// The manual check-in sheet, on Today: the fallback prompt's action or the prompt itself.
    case manualCheckIn
    /// The app, on Today: the resume and arrival reminders (opening the app is all they ask).
    case today

    /// The category of the manual check-in prompt, and its one action.
    public static let manualCheckInCategory = "MANUAL_CHECK_IN"
    public static let openManualCheckInAction = "OPEN_MANUAL_CHECK_IN"
    /// What iOS names a plain tap and a swipe away (`UNNotificationDefaultActionIdentifier`,
    /// `UNNotificationDismissActionIdentifier`).
    public static let tapAction = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"

    /// The route for a response to a notification of `category`; nil when it was dismissed.
    public static func route(category: String, action: String) -> NotificationRoute? {
        if action == dismissAction { return nil }
        if category == manualCheckInCategory, action == openManualCheckInAction || action == tapAction {
            return .manualCheckIn
        }
        return .today
    }

    /// Whether a notification of `category` is shown while the app is open: the manual prompt
    /// is (the employee may be looking at another screen); the reminders are not, since the
    /// running app is what they ask for and it withdraws them.
    public static func showsInForeground(category: String) -> Bool {
        category == manualCheckInCategory
    }
}
