import AttendanceModels
import AttendanceServer
import AttendanceStorage
import Foundation
import Logging
import ServiceLifecycle

/// Checks the ledger's tail at start and every `interval` inside `attendance serve`: the last
/// `rows` seals and their rows, the newest checkpoint's signature and the stored tree under it,
/// and rows left unsealed or out of the tree (`LedgerService.verifyTail`). A failure doesn't stop
/// the server: `/health` says "degraded" with the problems, `ledger_check_ok` in `/metrics` is 0,
/// the log has an error line, and the console shows a banner to those who may read the audit log.
struct LedgerWatch: Service {
    let repository: any LedgerRepository & LedgerTreeRepository
    let verifier: NoteVerifier
    let health: LedgerHealth
    let interval: Duration
    let rows: Int64
    let metrics: ServerMetrics
    let logger: Logger
    let environment: ServerEnvironment

    func checkOnce(started: Date) async throws {
        let now = environment.now()
        let result = try await LedgerService(repository: repository).verifyTail(
            rows: rows, verifier: verifier, now: now, started: started)
        health.record(result.problems, at: now)
        metrics.ledgerChecked(ok: result.isIntact)
        if !result.isIntact {
            logger.error(
                "the ledger failed its check", metadata: ["problems": "\(result.problems.joined(separator: "; "))"])
        }
    }

    func run() async throws {
        let started = environment.now()
        do {
            try await cancelWhenGracefulShutdown {
                // A check that can't run (the database is away) finds nothing wrong: logged, retried.
                try await repeatUntilCancelled(
                    every: interval, logger: logger, failure: "the ledger check could not run",
                    recovery: "the ledger check runs again"
                ) {
                    try await checkOnce(started: started)
                }
            }
        } catch is CancellationError {}
    }
}
