import AttendanceModels
import AttendanceRules
import Foundation

/// Employees' correction requests and the erasure of a person, part of every repository.
public protocol RequestRepository: Sendable {
    /// Stores a new request with its ledger row, in one transaction.
    func fileRequest(_ request: CorrectionRequestRecord, actor: LedgerActor) async throws
    /// Requests, newest first (at most 500), optionally one employee's or in one state.
    func requests(userId: UserID?, state: CorrectionRequestRecord.State?) async throws -> [CorrectionRequestRecord]
    func request(id: CorrectionRequestID) async throws -> CorrectionRequestRecord?
    /// Approves or rejects a pending request (`RequestRules.decide`); an approval applies its
    /// correction or adds its session in the same transaction, with both ledger rows.
    func decideRequest(
        id: CorrectionRequestID, approve: Bool, comment: String?, actor: LedgerActor, now: Date
    ) async throws
        -> RequestDecisionOutcome
    /// Pseudonymises a deactivated employee: name replaced, e-mail and external id removed, the
    /// personal data of their ledger rows erased, and a row recording it, in one transaction.
    /// Nil when no employee has this id; the employee unchanged when they are still active.
    func eraseEmployee(id: UserID, pseudonym: String, actor: LedgerActor, now: Date) async throws -> EmployeeRecord?
}
