#if canImport(UserNotifications) && os(iOS)
    import AttendanceAppCore
    import AttendanceEngine
    import AttendanceModels
    import AttendanceSync
    import CoreLocation
    import Foundation
    import UserNotifications

    /// The runtime's `Notifier`: local notifications for the manual check-in fallback (tapping one
    /// opens the Today screen's manual check-in; the category's action identifier says which) and
    /// the resume reminder and the arrival reminder after a force-quit (tapping either opens the app,
    /// which is all it takes). It is the notification centre's delegate, so a tap reaches the app
    /// (`NotificationRoute` decides where); create it before `didFinishLaunching` returns, as iOS
    /// delivers the tap that launched the app right after.
    public final class NotificationAdapter: NSObject, Notifier, UNUserNotificationCenterDelegate, @unchecked Sendable {
        // @unchecked: UNUserNotificationCenter is documented thread-safe; `routes` is locked.
        public static let manualCheckInCategory = NotificationRoute.manualCheckInCategory
        public static let openManualCheckInAction = NotificationRoute.openManualCheckInAction
        private let center = UNUserNotificationCenter.current()
        /// Who is told where a tapped notification leads (the app's model), and a route that came
        /// before anyone was listening (the tap that launched the app).
        private struct Routes {
            var handler: (@Sendable (NotificationRoute) -> Void)?
            var pending: NotificationRoute?
        }
        private let routes = Locked(Routes())

        public override init() {
            super.init()
            let open = UNNotificationAction(
                identifier: Self.openManualCheckInAction,
                title: LocalizedText("Check in by hand").resolved(by: DisplayFormat.appBundle), options: [.foreground])
            center.setNotificationCategories([
                UNNotificationCategory(identifier: Self.manualCheckInCategory, actions: [open], intentIdentifiers: [])
            ])
            center.delegate = self
        }

        /// Where the screens learn that a notification was tapped.
        public func onRoute(_ handler: @escaping @Sendable (NotificationRoute) -> Void) {
            let pending = routes.withLock { routes -> NotificationRoute? in
                routes.handler = handler
                defer { routes.pending = nil }
                return routes.pending
            }
            if let pending { handler(pending) }
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            let category = response.notification.request.content.categoryIdentifier
            if let route = NotificationRoute.route(category: category, action: response.actionIdentifier) {
                let handler = routes.withLock { routes -> (@Sendable (NotificationRoute) -> Void)? in
                    if routes.handler == nil { routes.pending = route }
                    return routes.handler
                }
                handler?(route)
            }
            completionHandler()
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            let category = notification.request.content.categoryIdentifier
            completionHandler(NotificationRoute.showsInForeground(category: category) ? [.banner, .list, .sound] : [])
        }

        public func requestAuthorization() async -> Bool {
            (try? await center.requestAuthorization(options: [.alert, .sound])) ?? false
        }

        /// Whether the app's notifications are shown, for the permission snapshot. Provisional
        /// delivery is quiet (Notification Center only, no banner), so it counts as not yet decided:
        /// onboarding's request then asks for banners.
        public func authorization() async -> PermissionSnapshot.Authorization {
            switch await center.notificationSettings().authorizationStatus {
            case .authorized, .ephemeral: return .authorized
            case .denied: return .denied
            case .notDetermined, .provisional: return .notDetermined
            @unknown default: return .notDetermined
            }
        }

        public func show(_ notification: LocalNotification) {
            let content = UNMutableNotificationContent()
            // In the phone's language now, from the app's String Catalog.
            content.title = notification.title.resolved(by: DisplayFormat.appBundle)
            content.body = notification.body.resolved(by: DisplayFormat.appBundle)
            switch notification.kind {
            case .manualCheckInPrompt:
                content.categoryIdentifier = Self.manualCheckInCategory
                content.interruptionLevel = .timeSensitive
            case .resumeReminder:
                // Quiet: it waits in Notification Centre (no sound, no lit screen at night). The app
                // is running now, so a reminder shown earlier is out of date.
                content.interruptionLevel = .passive
                center.removeDeliveredNotifications(withIdentifiers: [notification.identifier])
            case .arrivalReminder:
                // Quiet too: iOS shows it on every arrival and the running app withdraws it within
                // seconds, so it must not light the screen; after a force-quit it waits on the lock
                // screen for the next glance. The app runs now, so the one shown (if any) is out of date.
                content.interruptionLevel = .passive
                center.removeDeliveredNotifications(withIdentifiers: [notification.identifier])
            }
            let trigger: UNNotificationTrigger?
            if let region = notification.region {
                // The system monitors the region itself (When In Use suffices), even after a force-quit.
                let beaconRegion =
                    region.major.map {
                        CLBeaconRegion(uuid: region.uuid, major: $0, identifier: notification.identifier)
                    }
                    ?? CLBeaconRegion(uuid: region.uuid, identifier: notification.identifier)
                beaconRegion.notifyOnEntry = true
                beaconRegion.notifyOnExit = false
                trigger = UNLocationNotificationTrigger(region: beaconRegion, repeats: true)
            } else {
                trigger = notification.deliverAt.map {
                    UNTimeIntervalNotificationTrigger(timeInterval: max(1, $0.timeIntervalSinceNow), repeats: false)
                }
            }
            // One pending notification per kind and sequence: a newer one replaces it.
            center.add(UNNotificationRequest(identifier: notification.identifier, content: content, trigger: trigger))
        }

        public func withdraw(_ identifier: String) {
            center.removePendingNotificationRequests(withIdentifiers: [identifier])
            center.removeDeliveredNotifications(withIdentifiers: [identifier])
        }
    }
#endif
