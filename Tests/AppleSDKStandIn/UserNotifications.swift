// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation
import CoreLocation

public struct UNAuthorizationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
    @available(iOS, introduced: 15.0, deprecated: 15.0, message: "Use time-sensitive entitlement")
    public static let timeSensitive = UNAuthorizationOptions(rawValue: 1 << 8)
}
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    // Deprecated in favour of `.list` and `.banner`.
    @available(iOS, introduced: 10.0, deprecated: 14.0)
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    @available(iOS 14.0, *)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    @available(iOS 14.0, *)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}
public struct UNNotificationActionOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}
public struct UNNotificationCategoryOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
}
@available(iOS 15.0, *)
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    case passive = 0, active, timeSensitive, critical
}

open class UNNotificationAction: NSObject {
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {}
    open var identifier: String { "" }
}
open class UNNotificationCategory: NSObject {
    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
                options: UNNotificationCategoryOptions = []) {}
    open var identifier: String { "" }
}

open class UNNotificationContent: NSObject {
    open var title: String { "" }
    open var subtitle: String { "" }
    open var body: String { "" }
    open var categoryIdentifier: String { "" }
    open var threadIdentifier: String { "" }
    open var userInfo: [AnyHashable: Any] { [:] }
    @available(iOS 15.0, *)
    open var interruptionLevel: UNNotificationInterruptionLevel { .active }
}
open class UNMutableNotificationContent: UNNotificationContent {
    public override init() {}
    private var _title = "", _body = "", _subtitle = "", _category = "", _thread = ""
    private var _level = UNNotificationInterruptionLevel.active
    open override var title: String { get { _title } set { _title = newValue } }
    open override var subtitle: String { get { _subtitle } set { _subtitle = newValue } }
    open override var body: String { get { _body } set { _body = newValue } }
    open override var categoryIdentifier: String { get { _category } set { _category = newValue } }
    open override var threadIdentifier: String { get { _thread } set { _thread = newValue } }
    @available(iOS 15.0, *)
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { _level }
        set { _level = newValue }
    }
}

open class UNNotificationTrigger: NSObject {
    open var repeats: Bool { false }
}
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger {
    public init(timeInterval: TimeInterval, repeats: Bool) {}
    open var timeInterval: TimeInterval { 0 }
}
open class UNCalendarNotificationTrigger: UNNotificationTrigger {
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {}
}
open class UNLocationNotificationTrigger: UNNotificationTrigger {
    public init(region: CLRegion, repeats: Bool) {}
    open var region: CLRegion { fatalError() }
}

open class UNNotificationRequest: NSObject {
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {}
    open var identifier: String { "" }
    open var content: UNNotificationContent { UNNotificationContent() }
    open var trigger: UNNotificationTrigger? { nil }
}
open class UNNotification: NSObject {
    open var date: Date { Date() }
    open var request: UNNotificationRequest { fatalError() }
}
open class UNNotificationResponse: NSObject {
    open var notification: UNNotification { fatalError() }
    open var actionIdentifier: String { "" }
}
public let UNNotificationDefaultActionIdentifier: String = "com.apple.UNNotificationDefaultActionIdentifier"
public let UNNotificationDismissActionIdentifier: String = "com.apple.UNNotificationDismissActionIdentifier"

public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    // iOS 18 SDK: completion handlers are @Sendable.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void)
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void)
#if !STRICT
    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
#endif
}
#if !STRICT
extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void) {}
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {}
    public func userNotificationCenter(_ center: UNUserNotificationCenter,
                                       openSettingsFor notification: UNNotification?) {}
}
#endif

public enum UNAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, denied, authorized, provisional
    @available(iOS 14.0, *)
    case ephemeral
}
// iOS 18 SDK: UNNotificationSettings is not Sendable.
open class UNNotificationSettings: NSObject {
    open var authorizationStatus: UNAuthorizationStatus { .notDetermined }
}

open class UNUserNotificationCenter: NSObject {
    open class func current() -> UNUserNotificationCenter { fatalError() }
    weak open var delegate: (any UNUserNotificationCenterDelegate)?
    open func requestAuthorization(options: UNAuthorizationOptions = [],
                                   completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {}
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool { false }
    open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {}
    open func notificationSettings() async -> UNNotificationSettings { UNNotificationSettings() }
    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {}
    open func add(_ request: UNNotificationRequest,
                  withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {}
    open func add(_ request: UNNotificationRequest) async throws {}
    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {}
    open func removeAllPendingNotificationRequests() {}
    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {}
    open func removeAllDeliveredNotifications() {}
}
