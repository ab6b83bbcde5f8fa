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

    /// `expiring` sends `.backgroundTimeExpiring` to the engine.
    public init(expiring: @escaping @Sendable () -> Void) { self.expiring = expiring }

    public nonisolated func begin() {
        Task { @MainActor in
            guard self.task == .invalid else { return }
            self.task = UIApplication.shared.beginBackgroundTask(withName: "attendance.ranging") { [weak self] in
                self?.expiring()
                self?.finish()
            }
        }
    }

    public nonisolated func end() { Task { @MainActor in self.finish() } }

    private func finish() {
        guard task != .invalid else { return }
        UIApplication.shared.endBackgroundTask(task)
        task = .invalid
    }
}
#endif
