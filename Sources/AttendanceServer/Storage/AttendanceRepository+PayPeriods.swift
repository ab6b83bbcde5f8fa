import AttendanceModels
import Foundation

/// A pay period that has left `open` at least once (periods never touched are computed from the
/// cycle settings and are open).
public struct PayPeriodRecord: Hashable, Sendable {
    public var dates: PayPeriodDates
    public var state: PayPeriodMachine.State
    public var changedAt: Date?
    public var changedBy: LedgerActor?
    public var lockedAt: Date?

    public init(
        dates: PayPeriodDates, state: PayPeriodMachine.State, changedAt: Date? = nil, changedBy: LedgerActor? = nil,
        lockedAt: Date? = nil
    ) {
        self.dates = dates
        self.state = state
        self.changedAt = changedAt
        self.changedBy = changedBy
        self.lockedAt = lockedAt
    }
}

/// A timesheet row as it was when its pay period was locked (`TimesheetDayCodec` JSON).
public struct LockedDay: Hashable, Sendable {
    public var periodStart: LocalDate
    public var userId: UserID
    public var siteId: SiteID
    public var date: LocalDate
    public var row: Data

    public init(periodStart: LocalDate, userId: UserID, siteId: SiteID, date: LocalDate, row: Data) {
        self.periodStart = periodStart
        self.userId = userId
        self.siteId = siteId
        self.date = date
        self.row = row
    }
}

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
