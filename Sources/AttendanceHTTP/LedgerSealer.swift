import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Logging
import ServiceLifecycle

/// Seals committed ledger rows into the hash chain and appends them to the Merkle tree with one
/// signed checkpoint per round, every `interval`, inside `attendance serve` (a ServiceLifecycle
/// service beside the HTTP server). Check-ins never wait for the chain: they write their row and
/// commit concurrently; the sealer links what has committed since, one process at a time (the
/// repository's lock), so replicas can all run one. Counts what it sealed in `/metrics`
/// (`ledger_rows_sealed_total`) and shows the tree's size (`ledger_tree_size`).
struct LedgerSealer: Service {
    let interval: Duration
    let logger: Logger
    /// The rounds, one at a time: the timer's, and those a device's answer asks for (`AnswerReceipts`).
    let rounds: SealRounds
    private let sealing: Sealing

    /// What sealing needs, and what it does with each batch it sealed: counted in `/metrics`, and
    /// the growth kept for the answers' receipts (`recent`, nil when they are off).
    private struct Sealing: Sendable {
        let repository: any LedgerRepository & LedgerTreeRepository
        let signer: NoteSigner
        let batch: Int
        let metrics: ServerMetrics
        let recent: RecentTreeGrowths?
        let environment: ServerEnvironment

        func record(sealed: Int, growth: LedgerTreeGrowth?) {
            metrics.sealed(sealed)
            guard let growth else { return }
            metrics.checkpointSigned(size: growth.checkpoint.checkpoint.size)
            recent?.add(growth)
        }

        /// Seals and grows the tree over what is sealed, in one transaction a batch, until
        /// nothing is left.
        func round() async throws {
            while true {
                let (sealed, growth) = try await repository.sealAndGrowLedger(
                    limit: batch, signer: signer, now: environment.now())
                record(sealed: sealed, growth: growth)
                // A backlog goes in batches: on while either step had a full one.
                if sealed < batch, (growth?.rows.count ?? 0) < batch { return }
            }
        }
    }

    init(
        repository: any LedgerRepository & LedgerTreeRepository, signer: NoteSigner, interval: Duration, batch: Int,
        metrics: ServerMetrics, recent: RecentTreeGrowths?, logger: Logger, environment: ServerEnvironment
    ) {
        self.interval = interval
        self.logger = logger
        let sealing = Sealing(
            repository: repository, signer: signer, batch: batch, metrics: metrics, recent: recent,
            environment: environment)
        self.sealing = sealing
        self.rounds = SealRounds { try await sealing.round() }
    }

    /// From now on a group commit of device events seals them and grows the tree too, so their
    /// answers find their receipts at once (SQLite; on PostgreSQL the rounds do it).
    func sealInEachGroupCommit() {
        let sealing = sealing
        _ = sealing.repository.sealInEachGroupCommit(
            limit: sealing.batch, signer: sealing.signer, now: { sealing.environment.now() },
            grown: { sealed, growth in sealing.record(sealed: sealed, growth: growth) })
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                // The rows stay committed and unsealed while it fails; the next round seals them.
                try await repeatUntilCancelled(
                    every: interval, logger: logger, failure: "ledger sealing failed",
                    recovery: "ledger sealing works again"
                ) {
                    try await rounds.round()
                }
            }
        } catch is CancellationError {
            // Stopped with the server; what is unsealed is sealed at the next start.
        }
    }
}
