#if canImport(CoreMotion) && os(iOS)
import AttendanceAppCore
import AttendanceEngine
import AttendanceSync
import CoreMotion
import Foundation

/// The runtime's `MotionProvider`: the last activity CoreMotion classified in the look-back and
/// the pedometer's steps over it. Both are history queries (the motion coprocessor keeps 7 days),
/// so they work when iOS has just woken the app for a region event.
public final class MotionAdapter: MotionProvider, @unchecked Sendable {
    // @unchecked: CMMotionActivityManager and CMPedometer are used only through their
    // thread-safe query methods, with answers on `queue`.
    private let activity = CMMotionActivityManager()
    private let pedometer = CMPedometer()
    private let queue = OperationQueue()

    public init() {}

    public static var isAvailable: Bool { CMMotionActivityManager.isActivityAvailable() || CMPedometer.isStepCountingAvailable() }

    /// Motion & Fitness access, for the permission snapshot (reading it shows no prompt).
    public static var authorization: PermissionSnapshot.Authorization {
        guard isAvailable else { return .unavailable }
        switch CMMotionActivityManager.authorizationStatus() {
        case .authorized: return .authorized
        case .denied, .restricted: return .denied
        case .notDetermined: return .notDetermined
        @unknown default: return .notDetermined
        }
    }

    public func snapshot(lookbackMinutes: Double) async -> MotionSnapshot? {
        guard Self.isAvailable, CMMotionActivityManager.authorizationStatus() != .denied else { return nil }
        let now = Date()
        let start = now.addingTimeInterval(-lookbackMinutes * 60)
        async let steps = steps(from: start, to: now)
        async let last = lastActivity(from: start, to: now)
        let (stepCount, activity) = await (steps, last)
        guard stepCount != nil || activity != nil else { return nil }
        return MotionSnapshot(at: now, activity: activity?.kind ?? .unknown, confidence: activity?.confidence ?? .low, steps: stepCount,
                              walkingSince: activity?.walk?.start, walkEndedAt: activity?.walk?.end, firstWalkSince: activity?.firstWalk,
                              historySince: start)
    }

    private func steps(from start: Date, to end: Date) async -> Int? {
        guard CMPedometer.isStepCountingAvailable() else { return nil }
        return await withCheckedContinuation { continuation in
            pedometer.queryPedometerData(from: start, to: end) { data, _ in continuation.resume(returning: data?.numberOfSteps.intValue) }
        }
    }

    /// The latest activity in the range, and the latest walk (or run) in it: when it began and,
    /// if another activity followed, when it ended; and when the first walk that began in the
    /// range began. Each CMMotionActivity lasts until the next.
    private func lastActivity(from start: Date, to end: Date)
        async -> (kind: MotionSnapshot.Activity, confidence: MotionSnapshot.Confidence, walk: (start: Date, end: Date?)?, firstWalk: Date?)? {
        guard CMMotionActivityManager.isActivityAvailable() else { return nil }
        return await withCheckedContinuation { continuation in
            activity.queryActivityStarting(from: start, to: end, to: queue) { activities, _ in
                guard let activities, let last = activities.last else { continuation.resume(returning: nil); return }
                let kind: MotionSnapshot.Activity = last.walking ? .walking : last.running ? .running : last.automotive ? .automotive
                    : last.cycling ? .cycling : last.stationary ? .stationary : .unknown
                let confidence: MotionSnapshot.Confidence = switch last.confidence {
                case .high: .high
                case .medium: .medium
                default: .low
                }
                func walking(_ entry: CMMotionActivity) -> Bool { (entry.walking || entry.running) && entry.confidence != .low }
                var walk: (start: Date, end: Date?)?
                if let last = activities.lastIndex(where: walking) {
                    var first = last
                    while first > activities.startIndex, walking(activities[first - 1]) { first -= 1 }
                    let next = activities.index(after: last)
                    walk = (activities[first].startDate, next < activities.endIndex ? activities[next].startDate : nil)
                }
                // A walk already under way when the range began is not one that began in it.
                let firstWalk = activities.indices.first { index in
                    walking(activities[index]) && activities[index].startDate > start && (index == activities.startIndex || !walking(activities[index - 1]))
                }.map { activities[$0].startDate }
                continuation.resume(returning: (kind, confidence, walk, firstWalk))
            }
        }
    }
}
#endif
