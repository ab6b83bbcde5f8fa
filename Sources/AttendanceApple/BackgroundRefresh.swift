#if canImport(BackgroundTasks) && os(iOS)
import AttendanceAppCore
import AttendanceSync
import BackgroundTasks
import Foundation

/// BGTaskScheduler: an app refresh a few times a day at best (drain the outbox, fetch the remote
/// configuration), and a processing task that needs the network, for a long backlog after days
/// offline. Both identifiers are in `BGTaskSchedulerPermittedIdentifiers` (Apps/iOS/project.yml).
public enum BackgroundRefresh {
    public static let refreshIdentifier = "com.beaconattendance.refresh"
    public static let drainIdentifier = "com.beaconattendance.drain"

    /// Registers the launch handlers; call before `application(_:didFinishLaunchingWithOptions:)` returns.
    public static func register(device: AttendanceDevice, report: @escaping @Sendable (String, any Error) -> Void) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: refreshIdentifier, using: nil) { task in
            schedule(report: report)
            // Through the device's lifecycle: launches only if this process has not yet, then
            // fetches the configuration and drains.
            run(task, report: report) { try await device.receive(.backgroundRefresh) }
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: drainIdentifier, using: nil) { task in
            run(task, report: report) { try await device.receive(.drain) }
        }
    }

    /// Asks for the next refresh (no earlier than 15 minutes) and a network-bound drain.
    public static func schedule(report: @Sendable (String, any Error) -> Void) {
        let refresh = BGAppRefreshTaskRequest(identifier: refreshIdentifier)
        refresh.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        let drain = BGProcessingTaskRequest(identifier: drainIdentifier)
        drain.requiresNetworkConnectivity = true
        drain.requiresExternalPower = false
        for request in [refresh, drain] as [BGTaskRequest] {
            do { try BGTaskScheduler.shared.submit(request) } catch { report("scheduling \(request.identifier)", error) }
        }
    }

    private static func run(_ task: BGTask, report: @escaping @Sendable (String, any Error) -> Void,
                            _ work: @escaping @Sendable () async throws -> Void) {
        let handle = TaskHandle(task)
        let job = Locked<Task<Void, Never>?>(nil)
        // Completed once, by whichever comes first: the work's end or the expiry.
        let completed = Locked(false)
        let complete: @Sendable (Bool) -> Void = { success in
            let first = completed.withLock { done in
                defer { done = true }
                return !done
            }
            if first { handle.complete(success: success) }
        }
        // Set before the work starts, so an early expiry is not missed: stop, and tell iOS now;
        // what was not sent stays in the outbox for the next chance.
        task.expirationHandler = {
            job.value?.cancel()
            complete(false)
        }
        job.value = Task {
            do {
                try await work()
                complete(true)
            } catch {
                report("background task \(handle.identifier)", error)
                complete(false)
            }
        }
    }

    /// `BGTask` is not `Sendable`; completing it from the task that did the work is what Apple's
    /// samples do (its methods may be called from any thread).
    private struct TaskHandle: @unchecked Sendable {
        let task: BGTask
        init(_ task: BGTask) { self.task = task }
        var identifier: String { task.identifier }
        func complete(success: Bool) { task.setTaskCompleted(success: success) }
    }
}
#endif
