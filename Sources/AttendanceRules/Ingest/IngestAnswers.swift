import AttendanceModels
import Foundation

/// How `IngestService` writes its answers: in the contract's JSON, by AttendanceHTTP's
/// `ContractAnswers` (the generated types). An answer is rendered once, when its request is first
/// processed, and stored under the request's key; a replay sends the stored bytes.
public protocol IngestAnswers: Sendable {
    /// The session a check-in, check-out or heartbeat made (`created`) or found.
    func session(_ session: SessionRecord, created: Bool) throws -> StoredReply
    /// The event waits for its session's check-in.
    func pending(sessionKey: SessionKey) throws -> StoredReply
    /// A refusal (RFC 9457 problem+json in the contract).
    func refusal(_ error: DomainError) -> StoredReply
    /// A batch's per-item results: each item's status, and its problem when it was refused.
    func batch(_ results: [(idempotencyKey: String, reply: StoredReply)]) throws -> StoredReply
}
