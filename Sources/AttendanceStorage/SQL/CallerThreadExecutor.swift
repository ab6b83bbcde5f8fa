import Foundation

/// Runs an async operation to its end on the thread that calls `run`: the operation's task
/// prefers this executor, so its jobs are queued here and run by the waiting caller. SQLite's
/// storage code is written once, async, for both databases; on SQLite it runs inside GRDB's
/// synchronous write or read on GRDB's own thread, each statement without a thread hop
/// (docs/decisions/0028-one-storage-written-once.md).
package final class CallerThreadExecutor<Value: Sendable>: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `outcome` and `finished` are read and written under `condition` only.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var outcome: Result<Value, any Error>?

    package static func run(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let executor = CallerThreadExecutor()
        Task(executorPreference: executor) {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            executor.finish(result)
        }
        return try executor.drain().get()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func finish(_ result: Result<Value, any Error>) {
        condition.lock()
        outcome = result
        condition.signal()
        condition.unlock()
    }

    /// Runs the queued jobs until the operation has finished, waiting while it waits elsewhere.
    private func drain() -> Result<Value, any Error> {
        while true {
            condition.lock()
            while jobs.isEmpty && outcome == nil { condition.wait() }
            if jobs.isEmpty, let outcome {
                condition.unlock()
                return outcome
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
