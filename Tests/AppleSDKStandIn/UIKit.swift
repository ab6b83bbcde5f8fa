// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation

@MainActor open class UIResponder: NSObject {}

public enum UIBackgroundRefreshStatus: Int, Sendable {
    case restricted = 0, denied, available
}

public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

@MainActor open class UIApplication: UIResponder {
    open class var shared: UIApplication { fatalError() }
    open var backgroundRefreshStatus: UIBackgroundRefreshStatus { .available }
    open var backgroundTimeRemaining: TimeInterval { 0 }
    // iOS 18 SDK: nonisolated, handler (@MainActor @Sendable () -> Void)?
    nonisolated open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { .invalid }
    nonisolated open func beginBackgroundTask(
        expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { .invalid }
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
    nonisolated public static let didEnterBackgroundNotification =
        NSNotification.Name("UIApplicationDidEnterBackgroundNotification")
    nonisolated public static let willEnterForegroundNotification =
        NSNotification.Name("UIApplicationWillEnterForegroundNotification")
    nonisolated public static let backgroundRefreshStatusDidChangeNotification =
        NSNotification.Name("UIApplicationBackgroundRefreshStatusDidChangeNotification")
    nonisolated public static let didBecomeActiveNotification =
        NSNotification.Name("UIApplicationDidBecomeActiveNotification")
    // iOS 4.0
    nonisolated public static let protectedDataDidBecomeAvailableNotification =
        NSNotification.Name("UIApplicationProtectedDataDidBecomeAvailable")
}

@MainActor open class UIDevice: NSObject {
    open class var current: UIDevice { fatalError() }
    open var name: String { "" }
}

// MARK: - What the app's delegate and screens use (Apps/iOS)

extension UIApplication {
    public enum State: Int, Sendable {
        case active = 0, inactive, background
    }

    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let location = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsLocationKey")
        public static let bluetoothCentrals =
            LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsBluetoothCentralsKey")
        public static let url = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsURLKey")
        public static let remoteNotification =
            LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
    }

    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    public var applicationState: UIApplication.State { .active }
    nonisolated public static let openSettingsURLString = "app-settings:"
    public func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
                     completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil) {}
}

// The SDK's methods are `optional` (Objective-C); here the default build gives each a default, and
// a STRICT build requires exactly the ones the app implements, so a signature of ours that matches
// none of theirs fails.
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void)
#if !STRICT
    func applicationDidBecomeActive(_ application: UIApplication)
    func applicationDidEnterBackground(_ application: UIApplication)
#endif
}
#if !STRICT
extension UIApplicationDelegate {
    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?)
        -> Bool {
        true
    }
    public func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                            completionHandler: @escaping () -> Void) {}
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
}
#endif

public enum UIKeyboardType: Int, Sendable {
    case `default` = 0, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad
    case emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad
}

public struct UITextContentType: Hashable, RawRepresentable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let URL = UITextContentType(rawValue: "url")
    public static let username = UITextContentType(rawValue: "username")
    public static let password = UITextContentType(rawValue: "password")
    public static let oneTimeCode = UITextContentType(rawValue: "one-time-code")
}
