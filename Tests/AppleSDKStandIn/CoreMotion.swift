// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation

public enum CMAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, restricted, denied, authorized
}
public enum CMMotionActivityConfidence: Int, Sendable {
    case low = 0, medium, high
}

open class CMLogItem: NSObject {
    open var timestamp: TimeInterval { 0 }
}
open class CMMotionActivity: CMLogItem {
    open var confidence: CMMotionActivityConfidence { .low }
    open var startDate: Date { Date() }
    open var unknown: Bool { false }
    open var stationary: Bool { false }
    open var walking: Bool { false }
    open var running: Bool { false }
    open var automotive: Bool { false }
    open var cycling: Bool { false }
}

public typealias CMMotionActivityQueryHandler = ([CMMotionActivity]?, (any Error)?) -> Void
public typealias CMPedometerHandler = (CMPedometerData?, (any Error)?) -> Void

open class CMMotionActivityManager: NSObject {
    open class func isActivityAvailable() -> Bool { false }
    open class func authorizationStatus() -> CMAuthorizationStatus { .notDetermined }
    open func queryActivityStarting(from start: Date, to end: Date, to queue: OperationQueue,
                                    withHandler handler: @escaping CMMotionActivityQueryHandler) {}
}

open class CMPedometerData: NSObject {
    open var startDate: Date { Date() }
    open var endDate: Date { Date() }
    open var numberOfSteps: NSNumber { 0 }
}

open class CMPedometer: NSObject {
    open class func isStepCountingAvailable() -> Bool { false }
    open class func authorizationStatus() -> CMAuthorizationStatus { .notDetermined }
    open func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {}
}
