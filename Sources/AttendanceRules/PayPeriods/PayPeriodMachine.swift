/// A pay period's state as a value (docs/TIMESHEETS.md, "Pay periods"): events in, an action out,
/// no I/O. The caller stores what the action says, in one transaction with its ledger row.
///
///     open ──approve──▶ approved ──lock──▶ locked
///       ▲                  │                 │
///       └────unapprove─────┘                 │
///       └──────────────reopen(reason)────────┘
public struct PayPeriodMachine: Hashable, Sendable {
    public enum State: String, CaseIterable, Hashable, Sendable {
        case open, approved, locked
    }

    public enum Event: Hashable, Sendable {
        case approve
        case unapprove
        case lock
        /// Reopening a locked period is the exception, so it carries why.
        case reopen(reason: String)
    }

    public enum Action: Hashable, Sendable {
        /// Store the new state.
        case store(State)
        /// Store `locked` with the period's rows as they are now: from here on a late event or a
        /// correction changes the live rows only, and shows as an exception.
        case lockWithSnapshot
        /// Store `open` and drop the snapshot: the live rows count again.
        case reopenDiscardingSnapshot(reason: String)
        /// Nothing changes; why.
        case refuse(String)
    }

    public private(set) var state: State

    public init(state: State = .open) { self.state = state }

    public mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.open, .approve):
            state = .approved
            return .store(.approved)
        case (.approved, .unapprove):
            state = .open
            return .store(.open)
        case (.approved, .lock):
            state = .locked
            return .lockWithSnapshot
        case (.locked, .reopen(let reason)):
            state = .open
            return .reopenDiscardingSnapshot(reason: reason)
        case (.open, .lock):
            return .refuse("the period is open; approve it before locking it")
        case (.open, .unapprove), (.open, .reopen):
            return .refuse("the period is already open")
        case (.approved, .approve):
            return .refuse("the period is already approved")
        case (.approved, .reopen):
            return .refuse("the period is approved, not locked; unapprove it instead")
        case (.locked, .approve), (.locked, .unapprove), (.locked, .lock):
            return .refuse("the period is locked; reopening it (with a reason) is the only change allowed")
        }
    }
}
