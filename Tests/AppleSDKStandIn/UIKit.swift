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
    nonisolated open func beginBackgroundTask(withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier { .invalid }
    nonisolated open func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier { .invalid }
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
    nonisolated public static let didEnterBackgroundNotification = NSNotification.Name("UIApplicationDidEnterBackgroundNotification")
    nonisolated public static let willEnterForegroundNotification = NSNotification.Name("UIApplicationWillEnterForegroundNotification")
    nonisolated public static let backgroundRefreshStatusDidChangeNotification = NSNotification.Name("UIApplicationBackgroundRefreshStatusDidChangeNotification")
}

@MainActor open class UIDevice: NSObject {
    open class var current: UIDevice { fatalError() }
    open var name: String { "" }
}
