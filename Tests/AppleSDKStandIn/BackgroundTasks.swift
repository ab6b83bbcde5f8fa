// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation
import Dispatch

open class BGTask: NSObject {
    open var identifier: String { "" }
    open var expirationHandler: (() -> Void)?
    open func setTaskCompleted(success: Bool) {}
}
open class BGAppRefreshTask: BGTask {}
open class BGProcessingTask: BGTask {}

open class BGTaskRequest: NSObject {
    open var identifier: String { "" }
    open var earliestBeginDate: Date?
}
open class BGAppRefreshTaskRequest: BGTaskRequest {
    public init(identifier: String) {}
}
open class BGProcessingTaskRequest: BGTaskRequest {
    public init(identifier: String) {}
    open var requiresNetworkConnectivity: Bool = false
    open var requiresExternalPower: Bool = false
}

open class BGTaskScheduler: NSObject {
    open class var shared: BGTaskScheduler { fatalError() }
    @discardableResult
    open func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
                       launchHandler: @escaping (BGTask) -> Void) -> Bool { true }
    open func submit(_ taskRequest: BGTaskRequest) throws {}
    open func cancel(taskRequestWithIdentifier identifier: String) {}
}
