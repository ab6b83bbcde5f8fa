import AttendanceModels
import AttendanceRules
import Foundation

/// Everything the server stores, behind one protocol with an implementation per database
/// (SQLite by default, PostgreSQL for scale). Every method is one transaction. The same contract
/// test suite runs against each implementation.
public protocol AttendanceRepository: Sendable {
    /// `sqlite` or `postgresql`, for `/health`.
    var backendName: String { get }
    /// Releases connections (the server's graceful shutdown, the end of a test).
    func shutdown()
    /// Answers when the database does (`GET /health`); throws otherwise.
    func ping() async throws
    /// The migrations this release has that the database has not applied, in order (`GET /ready`):
    /// empty once it is this release's schema; throws when the database does not answer.
    func pendingMigrations() async throws -> [String]
    /// A number that grows with every committed change to what a process may cache (sites,
    /// employees, devices, tokens, accounts), bumped by the database's own triggers.
    func directoryVersion() async throws -> Int64

    // MARK: Idempotency (docs/SERVER.md, exactly-once ingest)
    /// Forgets keys (and the console's sent forms) older than the retention period; returns how many
    /// keys.
    func purgeIdempotency(olderThan: Date) async throws -> Int

    // MARK: Directory
    /// Admin changes take `audit`, their ledger row, and write it in the same transaction when the
    /// change happened (nil: nothing to record, e.g. a test's fixture).
    func createSite(_ site: SiteRecord, audit: LedgerEvent?) async throws
    func site(id: SiteID) async throws -> SiteRecord?
    func site(beacon: SiteBeacon) async throws -> SiteRecord?
    func sites() async throws -> [SiteRecord]
    func createEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws
    func employee(id: UserID) async throws -> EmployeeRecord?

    // MARK: Sessions, one transaction per request
    /// Claims `slot.key`, records the check-in, and stores `slot.render`'s answer, in one
    /// transaction; a key used before writes nothing and says how it was used. A new session
    /// absorbs the check-outs and heartbeats that arrived before it; a known `sessionKey` is found,
    /// not recorded again (natural idempotency); a deactivated site records nothing.
    func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome
    /// The same for a check-out or heartbeat.
    func apply(_ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>) async throws
        -> SlotOutcome
    /// Stores the slot's answer (a refusal) under its key, claimed and answered at once.
    func storeAnswer(now: Date, answering slot: AnswerSlot<Void>) async throws -> SlotOutcome
    /// A batch: its own key, every item (each with its key) and the batch's answer, rendered from
    /// the items' outcomes in order, in **one** transaction: all of it commits, or none of it.
    func ingestBatch(
        _ items: [BatchWrite], now: Date, answering slot: AnswerSlot<[SlotOutcome]>
    ) async throws -> SlotOutcome
    func session(key: SessionKey) async throws -> SessionRecord?
    /// Check-outs and heartbeats stored without their session: waiting for its check-in, or kept
    /// because they could not apply to it (a check-out earlier than the check-in).
    func pendingEventCount(sessionKey: SessionKey?) async throws -> Int
    /// Open sessions (who is on site now), optionally for one site.
    func openSessions(siteId: SiteID?) async throws -> [SessionRecord]
}

/// Everything a server backend implements.
public typealias ServerRepository = AttendanceRepository & AuthRepository & AdminRepository & LedgerRepository
    & AccountRepository
    & RequestRepository & TimesheetRepository & PayPeriodRepository & LedgerTreeRepository

/// A storage failure the caller can act on: which constraint, what value.
public struct RepositoryError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable { case conflict, notFound }
    public var kind: Kind
    public var detail: String

    package init(kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }
    public var description: String { detail }
}
