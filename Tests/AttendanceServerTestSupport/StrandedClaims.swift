import AttendanceRules
import AttendanceStorage
import Foundation

@testable import AttendanceServer

extension AttendanceRepository {
    /// Claims `key` in `scope` in a transaction of its own and commits the claim unanswered: what
    /// releases before the batch became one transaction did, and what a crash then left behind.
    /// The server never does this any more; tests use it to stand for such a stranded claim, or to
    /// read how a key stands.
    public func claimIdempotency(
        scope: String, key: String, requestHash: String, now: Date
    ) async throws -> IdempotencyClaim {
        guard let storage = self as? any SQLStorage else { preconditionFailure("no SQL storage: \(type(of: self))") }
        return try await storage.database.write { tx in
            try await Idempotency.claim(tx, scope: scope, key: key, requestHash: requestHash, now: now)
        }
    }
}
