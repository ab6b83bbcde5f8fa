#if canImport(UIKit) && os(iOS)
import AttendanceEngine
import AttendanceSync
import UIKit

/// The runtime's `BackgroundTime`: one UIKit background task (~30 s instead of ~10 s after a
/// region event) open while anyone holds it: the engine between `begin()` and `end()`, and each
/// region or location callback from the moment iOS delivers it until the inbox has handled it.
/// A callback's hold is taken synchronously in the delegate method, on the main thread, so the
/// restore that follows a region relaunch already runs in the longer window. When iOS is about
/// to take the time back, the engine is told, so it decides with what it has instead of being
/// suspended mid-window. The expiry handler waits for that decision to be committed, at most
/// `expiryGraceSeconds`, and ends the task before it returns (iOS terminates an app whose
/// expired task is still open).
@MainActor
public final class BackgroundTimeAdapter: BackgroundTime, Sendable {
    private var task: UIBackgroundTaskIdentifier = .invalid
    private let expiring: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    /// When the time iOS gave runs out (nil: not known, or in the foreground), for the drainer.
    private nonisolated let deadline = Locked<Date?>(nil)
    /// Who needs the time: `0` is the engine, every other number a callback's hold.
    private nonisolated let holders = Locked<(held: Set<Int>, next: Int)>(([], 1))
    private nonisolated static let engine = 0
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

    public nonisolated func begin() { change { $0.insert(Self.engine) } }

    public nonisolated func end() { change { $0.remove(Self.engine) } }

    /// Holds the time for a callback being handled; `release(_:)` the number it returns once the
    /// inbox is done with it. On the main thread (a delegate method) the task is open on return.
    public nonisolated func hold() -> Int {
        let number = holders.withLock { state -> Int in
            let number = state.next
            state.next += 1
            state.held.insert(number)
            return number
        }
        reconcileSoon()
        return number
    }

    public nonisolated func release(_ number: Int) { change { $0.remove(number) } }

    public nonisolated func remainingSeconds() -> Double? {
        deadline.value.map { $0.timeIntervalSinceNow }
    }

    private nonisolated func change(_ body: (inout Set<Int>) -> Void) {
        holders.withLock { body(&$0.held) }
        reconcileSoon()
    }

    /// Opens or ends the task to match the holders: now on the main thread, else as soon as it runs.
    private nonisolated func reconcileSoon() {
        if Thread.isMainThread {
            MainActor.assumeIsolated { reconcile() }
        } else {
            Task { @MainActor in self.reconcile() }
        }
    }

    private func reconcile() {
        let needed = !holders.value.held.isEmpty
        if needed, task == .invalid {
            open()
        } else if !needed, task != .invalid {
            finish(task)
        }
    }

    private func open() {
        task = UIApplication.shared.beginBackgroundTask(withName: "attendance.decision") { [weak self] in
            // iOS calls this synchronously on the main thread.
            guard let self else { return }
            let expired = self.task
            // The inbox handles the expiry on the cooperative pool and signals once the decision
            // is committed; nothing it needs runs on the main thread meanwhile.
            let handled = DispatchSemaphore(value: 0)
            self.expiring { handled.signal() }
            _ = handled.wait(timeout: .now() + Self.expiryGraceSeconds)
            // The time is gone for everyone who held it: a later hold asks iOS again.
            self.holders.withLock { $0.held = [] }
            self.finish(expired)
        }
        readTimeLeft()
    }

    /// Ends `identifier` if it is still the open task (a later task is not ended by an old call).
    private func finish(_ identifier: UIBackgroundTaskIdentifier) {
        guard identifier != .invalid, identifier == task else { return }
        deadline.withLock { $0 = nil }
        UIApplication.shared.endBackgroundTask(identifier)
        task = .invalid
    }
}
#endif
