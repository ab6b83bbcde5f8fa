import Foundation
import Synchronization

/// What the server's last check of the ledger found (`LedgerWatch`), for `/health`, `/metrics` and
/// the console's banner. Shared by the handlers of one process.
public final class LedgerHealth: Sendable {
    public struct Failure: Sendable, Equatable {
        public var problems: [String]
        public var at: Date
    }

    private let state = Mutex<(checks: Int, failure: Failure?)>((0, nil))

    public init() {}

    /// The last check's problems (none: intact).
    public func record(_ problems: [String], at date: Date) {
        state.withLock { state in
            state.checks += 1
            state.failure = problems.isEmpty ? nil : Failure(problems: problems, at: date)
        }
    }

    /// The last check's failure; nil when it passed or none ran yet.
    public var failure: Failure? { state.withLock { $0.failure } }

    public var checks: Int { state.withLock { $0.checks } }
}
