import Foundation
import GRDB
import Synchronization

/// The device writes of concurrent requests, committed together (group commit). Each request's
/// work runs in a savepoint of one transaction that holds every request waiting when the previous
/// commit ended, and each is answered only after that transaction is durable: one fsync for the
/// group instead of one per request, and a page that every commit touches (the end of an
/// append-only table or index) written once for the group. A request whose work throws is rolled
/// back to its savepoint alone; a commit that fails fails every request of its group.
/// docs/decisions/0006-sqlite-commits-in-groups.md.
package final class SQLiteGroupCommit: Sendable {
    private let writer: any DatabaseWriter
    private let state = Mutex(State())
    /// Run at the end of each group's transaction (`closeEachGroup`), in a savepoint of its own;
    /// what it returns runs once the group has committed, before the group's requests are answered.
    private let closing = Mutex<(@Sendable (Database) throws -> @Sendable () -> Void)?>(nil)

    private struct State {
        var waiting: [any GroupedWrite] = []
        var draining = false
    }

    package init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `work` in the next group's transaction; returns once that transaction has committed.
    package func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(PendingWrite(work: work, continuation: continuation))
        }
    }

    /// Runs `hook` at the end of every group's transaction from now on (the ledger sealed and its
    /// tree grown in the commit that wrote the rows). A hook that throws is rolled back alone: the
    /// group's writes commit and are answered as if there were none.
    package func closeEachGroup(with hook: @escaping @Sendable (Database) throws -> @Sendable () -> Void) {
        closing.withLock { $0 = hook }
    }

    /// How many requests wait for the next group (tests).
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func enqueue(_ write: any GroupedWrite) {
        let startsDrain = state.withLock { state in
            state.waiting.append(write)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        // Detached: the drain outlives the request that started it and must not keep its task-locals.
        if startsDrain { Task.detached { await self.drain() } }
    }

    /// Commits groups until nobody waits: everything that arrived while a group was being
    /// committed is the next group.
    private func drain() async {
        while true {
            let group = state.withLock { state in
                let group = state.waiting
                state.waiting = []
                if group.isEmpty { state.draining = false }
                return group
            }
            guard !group.isEmpty else { return }
            let hook = closing.withLock { $0 }
            do {
                let committed = try await writer.write { db -> (@Sendable () -> Void)? in
                    for write in group { write.run(db) }
                    guard let hook else { return nil }
                    var then: (@Sendable () -> Void)?
                    try? db.inSavepoint {
                        then = try hook(db)
                        return .commit
                    }
                    return then
                }
                committed?()
                for write in group { write.finish(commitError: nil) }
            } catch {
                for write in group { write.finish(commitError: error) }
            }
        }
    }
}

private protocol GroupedWrite: Sendable {
    /// Runs the work in a savepoint of the group's transaction (on the writer's queue).
    func run(_ db: Database)
    /// Answers the request once the group's transaction has ended.
    func finish(commitError: (any Error)?)
}

/// One request's work and where its answer goes.
private final class PendingWrite<T: Sendable>: GroupedWrite, @unchecked Sendable {
    private let work: @Sendable (Database) throws -> T
    private let continuation: CheckedContinuation<T, any Error>
    // Set by `run` on the writer's queue inside the group's transaction, read by `finish` after
    // that transaction returned, both from the one drain loop: never at the same time.
    private var result: Result<T, any Error>?

    init(work: @escaping @Sendable (Database) throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.work = work
        self.continuation = continuation
    }

    func run(_ db: Database) {
        do {
            var value: T?
            try db.inSavepoint {
                value = try work(db)
                return .commit
            }
            if let value { result = .success(value) }
        } catch {
            result = .failure(error)
        }
    }

    func finish(commitError: (any Error)?) {
        if let commitError {
            continuation.resume(throwing: commitError)
        } else if let result {
            continuation.resume(with: result)
        } else {
            continuation.resume(throwing: DatabaseError(message: "a grouped write did not run"))
        }
    }
}
