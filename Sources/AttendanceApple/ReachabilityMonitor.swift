#if canImport(Network) && os(iOS)
import Foundation
import Network

/// `NWPathMonitor`: when a usable path appears after none, the outbox's network failures are due
/// again (the runtime's `networkBecameReachable`). Also tells Diagnostics whether the path is expensive.
public final class ReachabilityMonitor: @unchecked Sendable {
    // @unchecked: `wasSatisfied` is touched only on `queue`, where the monitor calls back.
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "attendance.reachability")
    private var wasSatisfied = true

    public init() {}

    public func start(onReachable: @escaping @Sendable () -> Void) {
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self else { return }
            let satisfied = path.status == .satisfied
            if satisfied, !self.wasSatisfied { onReachable() }
            self.wasSatisfied = satisfied
        }
        monitor.start(queue: queue)
    }

    public func stop() { monitor.cancel() }
}
#endif
