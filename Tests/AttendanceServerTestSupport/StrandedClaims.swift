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
        switch self {
        case let sqlite as SQLiteRepository:
            return try await sqlite.writer.write { db in
                try SQLiteRepository.claim(scope: scope, key: key, requestHash: requestHash, now: now, db: db)
            }
        case let postgres as PostgresRepository:
            return try await postgres.client.withConnection { connection in
                try await postgres.claim(scope: scope, key: key, requestHash: requestHash, now: now, on: connection)
            }
        default:
            preconditionFailure("no stranded claims for \(type(of: self))")
        }
    }
}
