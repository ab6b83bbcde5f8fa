import Foundation

/// What CoreMotion said about the recent past (activity plus pedometer), as of `at`.
public struct MotionSnapshot: Hashable, Sendable, Codable {
    public enum Activity: String, Hashable, Sendable, Codable {
        case walking, running, stationary, automotive, cycling, unknown
    }

    public enum Confidence: String, Hashable, Sendable, Codable {
        case low, medium, high
    }

    public var at: Date
    public var activity: Activity
    public var confidence: Confidence
    /// Steps counted during the look-back, when a pedometer is available.
    public var steps: Int?
    /// When the latest walk in the look-back began (CMMotionActivity history), if there was one.
    public var walkingSince: Date?

    public init(at: Date, activity: Activity, confidence: Confidence = .medium, steps: Int? = nil, walkingSince: Date? = nil) {
        self.at = at
        self.activity = activity
        self.confidence = confidence
        self.steps = steps
        self.walkingSince = walkingSince
    }

    /// Walking or running with more than low confidence, or enough steps in the look-back.
    public func looksLikeWalking(minSteps: Int) -> Bool {
        if (activity == .walking || activity == .running) && confidence != .low { return true }
        return (steps ?? 0) >= minSteps
    }
}
