import Synchronization
import Testing

@testable import AttendanceHTTP

/// The sealer's rounds (`SealRounds`): a caller waits for a round that began after it asked;
/// callers who ask while one runs share the next; rounds never overlap; a failure reaches those
/// who waited for that round, and the next round runs.
@Suite struct SealRoundsTests {
    /// A round's work that counts its runs, holds each one open until released, and notes overlap.
    final class Work: Sendable {
        struct State {
            var began = 0
            var running = 0
            var overlapped = false
            var failNext = false
            var gates: [CheckedContinuation<Void, Never>] = []
        }

        let state = Mutex(State())

        func run() async throws {
            let fail = state.withLock { state in
                state.began += 1
                state.running += 1
                if state.running > 1 { state.overlapped = true }
                defer { state.failNext = false }
                return state.failNext
            }
            await withCheckedContinuation { gate in state.withLock { $0.gates.append(gate) } }
            state.withLock { $0.running -= 1 }
            if fail { throw CancellationError() }
        }

        /// Releases the round waiting in its work, once it is there.
        func release() async {
            while true {
                let gate: CheckedContinuation<Void, Never>? = state.withLock { state in
                    state.gates.isEmpty ? nil : state.gates.removeFirst()
                }
                if let gate { return gate.resume() }
                await Task.yield()
            }
        }

        var began: Int { state.withLock { $0.began } }
    }

    @Test func aCallerAloneGetsARoundOfItsOwn() async throws {
        let work = Work()
        let rounds = SealRounds { try await work.run() }
        async let asked: Void = rounds.round()
        await work.release()
        try await asked
        #expect(work.began == 1)
    }

    @Test func callersDuringARoundShareTheNextOneAndRoundsNeverOverlap() async throws {
        let work = Work()
        let rounds = SealRounds { try await work.run() }
        let first = Task { try await rounds.round() }
        while work.began < 1 { await Task.yield() }
        // Three callers while the first round runs: what they committed may be past its read.
        let later = (0..<3).map { _ in Task { try await rounds.round() } }
        for _ in 0..<50 { await Task.yield() }
        #expect(work.began == 1)
        await work.release()
        try await first.value
        await work.release()
        for task in later { try await task.value }
        #expect(work.began == 2)
        #expect(!work.state.withLock { $0.overlapped })
    }

    @Test func aFailedRoundFailsItsCallersAndTheNextOneRuns() async throws {
        let work = Work()
        work.state.withLock { $0.failNext = true }
        let rounds = SealRounds { try await work.run() }
        let failing = Task { try await rounds.round() }
        await work.release()
        await #expect(throws: CancellationError.self) { try await failing.value }
        let next = Task { try await rounds.round() }
        await work.release()
        try await next.value
        #expect(work.began == 2)
    }
}
