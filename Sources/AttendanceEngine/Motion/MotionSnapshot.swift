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
    /// When that walk ended, if it has: the phone has not walked since.
    public var walkEndedAt: Date?
    /// When the first walk that began in the look-back began (a walk already under way at its
    /// start does not count): after an unwatched stretch, the earliest the person can have left.
    public var firstWalkSince: Date?
    /// When the look-back began: `firstWalkSince` is the first walk after this time.
    public var historySince: Date?

    public init(at: Date, activity: Activity, confidence: Confidence = .medium, steps: Int? = nil, walkingSince: Date? = nil,
                walkEndedAt: Date? = nil, firstWalkSince: Date? = nil, historySince: Date? = nil) {
        self.at = at
        self.activity = activity
        self.confidence = confidence
        self.steps = steps
        self.walkingSince = walkingSince
        self.walkEndedAt = walkEndedAt
        self.firstWalkSince = firstWalkSince
        self.historySince = historySince
    }

    /// The time a manual check-in can offer: the end of the latest walk, when the phone has
    /// been still since (walked in, sat down, then opened the app). Never before the arrival:
    /// the walk in ends at the desk.
    public var arrivedAt: Date? {
        guard activity == .stationary, let walkEndedAt, walkEndedAt <= at else { return nil }
        return walkEndedAt
    }

    /// The time a manual check-out can offer: the start of the latest walk (the walk out), for
    /// an employee who taps after leaving.
    public var departedAt: Date? {
        guard let walkingSince, walkingSince <= at else { return nil }
        return walkingSince
    }

    /// What the manual sheet offers: `arrivedAt` for a check-in, `departedAt` for a check-out;
    /// only when it is at least a minute before `at` and after `notBefore` (the check-in of the
    /// session a check-out closes), so that the engine will accept it. A check-out whose latest
    /// walk was already under way at the check-in, and went on after it, offers the check-in
    /// itself: no walk began since, so the employee checked in on their way out (in the simulator,
    /// a 90-second visit was checked in by hand during the walk out and out 6 minutes later).
    public func manualTimeOffer(checkIn: Bool, notBefore: Date?) -> Date? {
        guard var time = checkIn ? arrivedAt : departedAt else { return nil }
        if !checkIn, let notBefore, time <= notBefore, walkEndedAt.map({ $0 > notBefore }) ?? true { time = notBefore }
        guard at.timeIntervalSince(time) >= 60 else { return nil }
        return notBefore.map { time >= $0 } ?? true ? time : nil
    }

    /// The whole look-back, from `historySince`, without a walk: no walk began or went on in it,
    /// fewer than `minSteps` steps, and not walking now. Nobody leaves without walking.
    public func stayedPut(minSteps: Int) -> Bool {
        historySince != nil && walkingSince == nil && firstWalkSince == nil && !looksLikeWalking(minSteps: minSteps)
    }

    /// Walking or running with more than low confidence, or enough steps in the look-back.
    public func looksLikeWalking(minSteps: Int) -> Bool {
        if (activity == .walking || activity == .running) && confidence != .low { return true }
        return (steps ?? 0) >= minSteps
    }
}
