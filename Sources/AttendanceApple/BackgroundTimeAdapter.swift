#if canImport(UIKit) && os(iOS)
import AttendanceEngine
import AttendanceSync
import UIKit

/// The runtime's `BackgroundTime`: a UIKit background task around ranging (~30 s instead of
/// ~10 s after a region event). When iOS is about to take the time back, the engine is told, so
/// it decides with what it has instead of being suspended mid-window.
@MainActor
public final class BackgroundTimeAdapter: BackgroundTime, Sendable {
    private var task: UIBackgroundTaskIdentifier = .invalid
    private let expiring: @Sendable () -> Void
    /// When the time iOS gave runs out (nil: not known, or in the foreground), for the drainer.
    private nonisolated let deadline = Locked<Date?>(nil)

    /// `expiring` sends `.backgroundTimeExpiring` to the engine.
    public init(expiring: @escaping @Sendable () -> Void) { self.expiring = expiring }

    public nonisolated func begin() {
        Task { @MainActor in
            guard self.task == .invalid else { return }
            self.task = UIApplication.shared.beginBackgroundTask(withName: "attendance.ranging") { [weak self] in
                self?.expiring()
                self?.finish()
            }
            let remaining = UIApplication.shared.backgroundTimeRemaining
            // In the foreground iOS reports the greatest finite value: not limited.
            self.deadline.withLock { $0 = remaining < 3_600 ? Date().addingTimeInterval(remaining) : nil }
        }
    }

    public nonisolated func remainingSeconds() -> Double? {
        deadline.value.map { $0.timeIntervalSinceNow }
    }

    public nonisolated func end() { Task { @MainActor in self.finish() } }

    private func finish() {
        deadline.withLock { $0 = nil }
        guard task != .invalid else { return }
        UIApplication.shared.endBackgroundTask(task)
        task = .invalid
    }
}
#endif
