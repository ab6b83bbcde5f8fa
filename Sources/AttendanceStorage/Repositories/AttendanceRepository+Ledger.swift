import AttendanceModels
import AttendanceRules
import Foundation

/// The ledger's side of storage: rows written by the session writes themselves (in their
/// transaction), the sealer, the pages verification and rebuild read, and the changes people make.
public protocol LedgerRepository: Sendable {
    /// The highest ledger id committed so far (0 for an empty ledger).
    func latestLedgerID() async throws -> Int64
    /// The ids and session keys of the rows after `id`, in order: what a server process follows to
    /// show other processes' session changes live (`LedgerTail`).
    func ledgerSessionKeys(after id: Int64, limit: Int) async throws -> [(id: Int64, sessionKey: SessionKey?)]
    /// These sessions as they are now (the ones that exist), in no particular order.
    func sessions(keys: [SessionKey]) async throws -> [SessionRecord]
    /// Appends an admin action's row in a transaction of its own.
    func appendLedger(_ event: LedgerEvent) async throws
    /// Seals up to `limit` committed rows that have no seal yet, in the order found, continuing
    /// the chain; one sealer at a time (across processes). Returns how many were sealed.
    func sealLedger(limit: Int, now: Date) async throws -> Int
    /// Seals after `sequence`, with the rows they name (nil: the row is gone), in sequence order.
    func ledgerSeals(after sequence: Int64, limit: Int) async throws -> [(seal: LedgerSeal, event: LedgerEvent?)]
    /// Rows without a seal, after `id`, in id order.
    func unsealedLedgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent]
    /// Rows in ledger order (id), after `id`.
    func ledgerEvents(after id: Int64, limit: Int) async throws -> [LedgerEvent]
    /// Rows matching `filter`, newest first, before `id` (the previous page's last).
    func ledgerEvents(_ filter: LedgerFilter, before id: Int64?, limit: Int) async throws -> [LedgerEvent]
    /// Every session, for the rebuild's comparison.
    func allSessions() async throws -> [SessionRecord]
    /// Replaces the sessions and pending rows with what the ledger derives, in one transaction.
    func replaceSessions(with replay: LedgerReplay) async throws

    /// A correction: read, `SessionLedger.correct`, the ledger row and the session written, in one
    /// transaction (under the session's lock on PostgreSQL).
    func correctSession(
        _ key: SessionKey, _ correction: SessionCorrection, actor: LedgerActor, requestId: CorrectionRequestID?,
        now: Date
    ) async throws -> CorrectionOutcome
    /// An added session (`SessionLedger.add`), written with its ledger row.
    func addSession(
        _ added: AddedSession, actor: LedgerActor, requestId: CorrectionRequestID?, now: Date
    ) async throws
        -> CorrectionOutcome
    /// A void (`SessionLedger.void`), written with its ledger row.
    func voidSession(
        _ key: SessionKey, reason: String, actor: LedgerActor, now: Date
    ) async throws
        -> CorrectionOutcome
}
