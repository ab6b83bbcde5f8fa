import AttendanceModels
import AttendanceRules
import Foundation

/// Pay periods' states and locked rows, part of every repository.
public protocol PayPeriodRepository: Sendable {
    /// Stored periods that overlap `dates`, by start.
    func payPeriods(overlapping dates: ClosedRange<LocalDate>) async throws -> [PayPeriodRecord]
    /// Moves a period from `expected` to `record.state` in one transaction with its ledger row:
    /// false (nothing written) when its stored state is not `expected` (another admin was first).
    /// Locking stores `snapshot` as the period's locked rows; any other state drops them, and
    /// `open` drops the stored period too (its dates are the cycle's again).
    func changePayPeriod(
        _ record: PayPeriodRecord, from expected: PayPeriodMachine.State, snapshot: [LockedDay], audit: LedgerEvent
    ) async throws -> Bool
    /// The locked rows of `users` (at most 500) on `dates`.
    func lockedDays(users: [UserID], dates: ClosedRange<LocalDate>) async throws -> [LockedDay]
    /// Every locked row of the period starting on `start`.
    func lockedDays(periodStart start: LocalDate) async throws -> [LockedDay]
}
