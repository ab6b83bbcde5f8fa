#if canImport(UIKit) && os(iOS)
import AttendanceEngine
import AttendanceSync
import UIKit

/// The runtime's `BackgroundTime`: a UIKit background task around ranging (~30 s instead of
/// ~10 s after a region event). When iOS is about to take the time back, the engine is told, so
/// it decides with what it has instead of being suspended mid-window. The expiry handler waits
/// for that decision to be committed, at most `expiryGraceSeconds`, and ends the task before it
/// returns (iOS terminates an app whose expired task is still open).
@MainActor
public final class BackgroundTimeAdapter: BackgroundTime, Sendable {
    private var task: UIBackgroundTaskIdentifier = .invalid
    private let expiring: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    /// When the time iOS gave runs out (nil: not known, or in the foreground), for the drainer.
    private nonisolated let deadline = Locked<Date?>(nil)
    static let expiryGraceSeconds: Double = 1

    /// `expiring` sends `.backgroundTimeExpiring` to the engine and calls `done` once it was handled.
    /// Create on the main thread.
    public init(expiring: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        self.expiring = expiring
        // A task begun in the foreground has no limit until the app leaves it: the time left is
        // read again then, so the drainer does not start what it cannot finish.
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.readTimeLeft() }
        }
    }

    private func readTimeLeft() {
        guard task != .invalid else { return }
        let remaining = UIApplication.shared.backgroundTimeRemaining
        // In the foreground iOS reports the greatest finite value: not limited.
        deadline.withLock { $0 = remaining < 3_600 ? Date().addingTimeInterval(remaining) : nil }
    }

    public nonisolated func begin() {
        Task { @MainActor in
            guard self.task == .invalid else { return }
            self.task = UIApplication.shared.beginBackgroundTask(withName: "attendance.ranging") { [weak self] in
                // iOS calls this synchronously on the main thread.
                guard let self else { return }
                let expired = self.task
                // The inbox handles the expiry on the cooperative pool and signals once the decision
                // is committed; nothing it needs runs on the main thread meanwhile.
                let handled = DispatchSemaphore(value: 0)
                self.expiring { handled.signal() }
                _ = handled.wait(timeout: .now() + Self.expiryGraceSeconds)
                self.finish(expired)
            }
            self.readTimeLeft()
        }
    }

    public nonisolated func remainingSeconds() -> Double? {
        deadline.value.map { $0.timeIntervalSinceNow }
    }

    public nonisolated func end() { Task { @MainActor in self.finish(self.task) } }

    /// Ends `identifier` if it is still the open task (a later task is not ended by an old call).
    private func finish(_ identifier: UIBackgroundTaskIdentifier) {
        guard identifier != .invalid, identifier == task else { return }
        deadline.withLock { $0 = nil }
        UIApplication.shared.endBackgroundTask(identifier)
        task = .invalid
    }
}
#endif
