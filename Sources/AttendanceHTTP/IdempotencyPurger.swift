import AttendanceModels
import AttendanceServer
import AttendanceStorage
import Foundation
import Logging
import ServiceLifecycle

/// Forgets idempotency keys older than their retention (`IngestLimits.idempotencyRetentionSeconds`,
/// 30 days by default, as `openapi.yaml`'s `x-idempotency.retentionDays` publishes), once at start
/// and then every `interval`, inside `attendance serve` (a ServiceLifecycle service beside the HTTP
/// server, stopped with it). Counts what it purged in `/metrics`
/// (`idempotency_keys_purged_total`) and logs each run that purged something.
struct IdempotencyPurger: Service {
    let repository: any AttendanceRepository
    let retentionSeconds: Double
    let interval: Duration
    let metrics: ServerMetrics
    let logger: Logger
    let environment: ServerEnvironment

    /// One purge: keys made before now − retention. Returns how many were forgotten.
    @discardableResult
    func purgeOnce() async throws -> Int {
        let cutoff = environment.now().addingTimeInterval(-retentionSeconds)
        let purged = try await repository.purgeIdempotency(olderThan: cutoff)
        metrics.purged(purged)
        if purged > 0 {
            logger.info(
                "idempotency keys purged", metadata: ["purged": "\(purged)", "older_than": "\(RFC3339.format(cutoff))"])
        }
        return purged
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    do {
                        try await purgeOnce()
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        // A database that does not answer now may answer at the next run; the keys wait.
                        logger.error("idempotency purge failed", metadata: ["error": "\(error)"])
                    }
                    try await Task.sleep(for: interval)
                }
            }
        } catch is CancellationError {
            // Stopped with the server.
        }
    }
}
