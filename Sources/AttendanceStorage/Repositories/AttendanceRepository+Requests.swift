import AttendanceModels
import AttendanceRules
import Foundation

/// Employees' correction requests and the erasure of a person, part of every repository.
public protocol RequestRepository: Sendable {
    /// Stores a new request with its ledger row, in one transaction.
    func fileRequest(_ request: CorrectionRequestRecord, actor: LedgerActor) async throws
    /// A page of requests, newest first (by when filed, then id), optionally one employee's, in one
    /// state, or about `sites` only; `before`: the page starts after that request. A request is
    /// about a site as `RequestService.visible` says: a correction about its session's site (and,
    /// when it moves the session, the new one too), a missing session about the site it names.
    func requests(
        userId: UserID?, state: CorrectionRequestRecord.State?, sites: Set<SiteID>?, before: RequestCursor?,
        limit: Int
    ) async throws -> [CorrectionRequestRecord]
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

extension RequestRepository {
    /// Every request, newest first, optionally one employee's, in one state or about `sites` only
    /// (read a page at a time).
    public func requests(
        userId: UserID?, state: CorrectionRequestRecord.State?, sites: Set<SiteID>? = nil
    ) async throws -> [CorrectionRequestRecord] {
        var all: [CorrectionRequestRecord] = []
        var before: RequestCursor?
        while true {
            let page = try await requests(userId: userId, state: state, sites: sites, before: before, limit: 500)
            all += page
            guard page.count == 500, let last = page.last else { return all }
            before = RequestCursor(last)
        }
    }
}
