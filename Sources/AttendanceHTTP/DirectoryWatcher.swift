import AttendanceServer
import Logging
import ServiceLifecycle

/// Reads the database's directory version every `DirectoryWatch.pollInterval` inside
/// `attendance serve` (a ServiceLifecycle service beside the HTTP server, stopped with it), so that
/// this process's caches of sites, employees and tokens follow changes made through any process on
/// the same database. A failed read is logged once per outage; meanwhile the caches step aside.
struct DirectoryWatcher: Service {
    let watch: DirectoryWatch
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await repeatUntilCancelled(
                    every: DirectoryWatch.pollInterval, logger: logger,
                    failure: "directory version read failed; caches bypassed until it answers",
                    recovery: "directory version read again; caches in use"
                ) {
                    try await watch.poll()
                }
            }
        } catch is CancellationError {
            // Stopped with the server.
        }
    }
}
