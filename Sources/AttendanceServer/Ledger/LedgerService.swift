import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `attendance ledger verify` and `attendance ledger rebuild` do, over any backend: read the
/// ledger in pages, hand the rows to the pure `LedgerVerifier` or `LedgerReplay`, report.
public struct LedgerService: Sendable {
    public let repository: any LedgerRepository & LedgerTreeRepository
    public var pageSize: Int

    public init(repository: any LedgerRepository & LedgerTreeRepository, pageSize: Int = 10_000) {
        self.repository = repository
        self.pageSize = pageSize
    }

    /// Seals everything committed so far (the sealer does this in the background); returns how many.
    @discardableResult
    public func sealAll(now: Date) async throws -> Int {
        var total = 0
        while true {
            let sealed = try await repository.sealLedger(limit: pageSize, now: now)
            total += sealed
            if sealed < pageSize { return total }
        }
    }

    /// Grows the Merkle tree over everything sealed (the sealer does this in the background).
    public func growTree(signer: NoteSigner, now: Date) async throws {
        while try await repository.growLedgerTree(limit: pageSize, signer: signer, now: now) != nil {}
    }

    /// What a rebuild found.
    public struct Rebuild: Hashable, Sendable {
        public var rows: Int
        public var sessions: Int
        public var pending: Int
        /// Sessions the table held differently from what the ledger derives (missing, extra or
        /// changed), by key.
        public var differing: [SessionKey]
        /// Whether the table was replaced (false for a check).
        public var replaced: Bool
    }

    /// Derives every session from the ledger and compares it with the sessions table; replaces
    /// the table with what the ledger derives unless `checkOnly`.
    public func rebuild(checkOnly: Bool) async throws -> Rebuild {
        var replay = LedgerReplay()
        var id: Int64 = 0
        while true {
            let page = try await repository.ledgerEvents(after: id, limit: pageSize)
            for event in page { try replay.apply(event) }
            guard let last = page.last, page.count == pageSize else { break }
            id = last.id
        }
        let differing = replay.differences(from: try await repository.allSessions())
        if !checkOnly { try await repository.replaceSessions(with: replay) }
        return Rebuild(
            rows: replay.rows, sessions: replay.sessions.count, pending: replay.pendingRows.count,
            differing: differing, replaced: !checkOnly)
    }
}
