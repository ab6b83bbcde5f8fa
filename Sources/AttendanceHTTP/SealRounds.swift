/// Runs the sealer's rounds one at a time and lets callers ask for one: a caller waits for a round
/// that began after it asked, so what it committed before asking is sealed and in the tree when
/// it returns. Callers who ask while a round runs share the next one (the timer's rounds and the
/// device answers' receipts, `AnswerReceipts`), so under load the rounds run back to back, each
/// covering every commit since the last, and never two at once in this process.
actor SealRounds {
    private let work: @Sendable () async throws -> Void
    /// The round running now, if any.
    private var running: Task<Void, any Error>?
    /// The round that begins when `running` ends, with its number; callers join it.
    private var queued: (number: Int, task: Task<Void, any Error>)?
    private var rounds = 0

    init(_ work: @escaping @Sendable () async throws -> Void) {
        self.work = work
    }

    /// Returns when a round that began after this call has ended (its error, if it failed).
    func round() async throws {
        if let queued { return try await queued.task.value }
        rounds += 1
        let number = rounds
        let previous = running
        let task = Task { [work] in
            if let previous { _ = await previous.result }
            await self.begin(number)
            try await work()
        }
        // Queued until it begins (this actor runs nothing of the task before the await below).
        queued = (number, task)
        defer { finished(task) }
        try await task.value
    }

    /// The queued round starts: later callers queue behind it.
    private func begin(_ number: Int) {
        guard let queued, queued.number == number else { return }
        running = queued.task
        self.queued = nil
    }

    private func finished(_ task: Task<Void, any Error>) {
        if running == task { running = nil }
    }
}
