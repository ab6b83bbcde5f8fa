import AttendanceModels
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

    // MARK: Idempotency (DESIGN §5.2)
    /// Claims `key` in `scope` for a request whose canonical payload hashes to `requestHash`.
    func claimIdempotency(scope: String, key: String, requestHash: String, now: Date) async throws -> IdempotencyClaim
    /// Stores the answer of a claimed request.
    func completeIdempotency(scope: String, key: String, reply: StoredReply) async throws
    /// Releases a claim whose request failed on the server's side, so a retry is processed.
    func releaseIdempotency(scope: String, key: String) async throws
    /// Forgets keys older than the retention period; returns how many.
    func purgeIdempotency(olderThan: Date) async throws -> Int

    // MARK: Directory
    func createSite(_ site: SiteRecord) async throws
    func site(id: SiteID) async throws -> SiteRecord?
    func site(beacon: SiteBeacon) async throws -> SiteRecord?
    func sites() async throws -> [SiteRecord]
    func createEmployee(_ employee: EmployeeRecord) async throws
    func employee(id: UserID) async throws -> EmployeeRecord?

    // MARK: Sessions
    /// Records a check-in; if the session key is known, returns the existing session and
    /// `created == false` (natural idempotency). A new session absorbs the check-outs and
    /// heartbeats that arrived before it.
    func checkIn(_ command: CheckInCommand, now: Date) async throws -> (session: SessionRecord, created: Bool)
    func apply(_ command: SessionEventCommand, now: Date) async throws -> SessionEventOutcome
    func session(key: SessionKey) async throws -> SessionRecord?

    // MARK: One transaction per request (the device endpoints' path)
    /// Claims `slot.key`, records the check-in, and stores `slot.render`'s answer, in one
    /// transaction; a key used before writes nothing and says how it was used.
    func checkIn(_ command: CheckInCommand, now: Date, answering slot: AnswerSlot<(session: SessionRecord, created: Bool)>) async throws -> SlotOutcome
    /// The same for a check-out or heartbeat.
    func apply(_ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>) async throws -> SlotOutcome
    /// Stores a refusal under the key (claimed and answered at once).
    func storeAnswer(_ reply: StoredReply, now: Date, answering slot: AnswerSlot<Void>) async throws -> SlotOutcome
    /// Check-outs and heartbeats stored without their session: waiting for its check-in, or kept
    /// because they could not apply to it (a check-out earlier than the check-in).
    func pendingEventCount(sessionKey: SessionKey?) async throws -> Int
    /// Open sessions (who is on site now), optionally for one site.
    func openSessions(siteId: SiteID?) async throws -> [SessionRecord]
}

/// Everything a server backend implements.
public typealias ServerRepository = AttendanceRepository & AuthRepository & AdminRepository

/// A storage failure the caller can act on: which constraint, what value.
public struct RepositoryError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable { case conflict, notFound }
    public var kind: Kind
    public var detail: String
    public var description: String { detail }
}
