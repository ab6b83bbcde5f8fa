import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import Logging

/// Receipts for a phone's own ledger rows (LEDGER.md, "Receipts"): each row the phone's events made,
/// once it is in the tree, with its entry text and its inclusion proof in the newest checkpoint;
/// and the phone's report when they don't hold.
public struct ReceiptService: Sendable {
    public let repository: any LedgerTreeRepository
    /// The key the checkpoints are signed with: the phone pins its verifier key on first use.
    public let verifier: NoteVerifier
    let logger: Logger
    let now: @Sendable () -> Date

    public init(
        repository: any LedgerTreeRepository, verifier: NoteVerifier, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.verifier = verifier
        self.logger = logger
        self.now = now
    }

    public struct Page: Sendable {
        public var checkpoint: StoredCheckpoint
        public var receipts: [LedgerReceipt]
        /// Pass as `after` for the next page; nil when this was the last.
        public var nextAfter: Int64?
    }

    public func receipts(device: DeviceID, user: UserID, after: Int64, limit: Int) async throws -> Page {
        guard (1...200).contains(limit) else { throw DomainError.field("limit", String(limit), expected: "1 to 200") }
        guard after >= 0 else { throw DomainError.field("after", String(after), expected: "a row id, 0 or more") }
        let proofs = LedgerProofService(repository: repository)
        let checkpoint = try await proofs.latest()
        let size = checkpoint.checkpoint.size
        let rows = try await repository.ledgerRows(
            of: user, actor: .device(device), after: after, leaves: size, limit: limit)
        let inclusions = try await proofs.inclusions(of: rows.map(\.leaf), size: size)
        let receipts = zip(rows, inclusions).map { row, proof in
            LedgerReceipt(of: row.event, leaf: row.leaf, proof: proof)
        }
        return Page(
            checkpoint: checkpoint, receipts: receipts, nextAfter: rows.count == limit ? rows.last?.event.id : nil)
    }

    /// Keeps and logs a phone's report that the ledger did not match its receipts.
    public func report(
        device: DeviceID, user: UserID, problem: String, checkpoint: String?
    ) async throws -> LedgerWarning {
        try InputRules.text("problem", problem, maxLength: 500, allowEmpty: false)
        if let checkpoint, checkpoint.count > 8_192 {
            throw DomainError.field("checkpoint", String(checkpoint.prefix(40)), expected: "at most 8192 characters")
        }
        let warning = LedgerWarning(
            deviceId: device, userId: user, problem: problem, checkpoint: checkpoint, reportedAt: now())
        try await repository.storeLedgerWarning(warning)
        logger.error(
            "a phone reports the ledger does not match its receipts",
            metadata: ["device": "\(device)", "user": "\(user)", "problem": "\(problem)"])
        return warning
    }
}
