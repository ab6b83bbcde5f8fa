import AttendanceSync

/// A process killed in the middle of a write, for the store's `beforeCommit`: once armed, the next
/// commit throws after its writes and before it commits, so nothing of that transaction is kept.
final class MidWriteCrash: Sendable {
    private let armed = Locked(false)

    func arm() { armed.value = true }

    func strikeIfArmed() throws {
        let strike = armed.withLock { armed in
            defer { armed = false }
            return armed
        }
        if strike { throw SimulatedCrash() }
    }
}
