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
