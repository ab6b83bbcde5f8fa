import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// A pay period as the API shows it: its dates, its state, and who changed it last.
public struct PayPeriodView: Hashable, Sendable {
    public var dates: PayPeriodDates
    public var state: PayPeriodMachine.State
    public var changedAt: Date?
    public var changedBy: LedgerActor?
    public var lockedAt: Date?
}

/// Pay cycles and periods: approve, lock and reopen through `PayPeriodMachine`, each change stored
/// with its ledger row in one transaction; a lock stores the period's rows as they are.
public struct PayPeriodService: Sendable {
    public let repository: any TimesheetServiceStorage
    let timesheets: TimesheetService
    let settings: TimesheetSettingsService
    private let environment: ServerEnvironment

    public init(repository: any TimesheetServiceStorage, environment: ServerEnvironment) {
        self.repository = repository
        self.timesheets = TimesheetService(repository: repository, environment: environment)
        self.settings = TimesheetSettingsService(repository: repository, environment: environment)
        self.environment = environment
    }

    // MARK: - Cycles

    public func cycles() async throws -> [PayCycleSetting] {
        try await repository.payCycles()
            .sorted { $0.effectiveFrom < $1.effectiveFrom }
    }

    /// A cycle from `effectiveFrom` on. Refused (409) when an approved or locked period ends on or
    /// after that date: a cycle change never rewrites a period payroll has seen.
    public func saveCycle(
        _ cycle: PayCycle, effectiveFrom: LocalDate, anchor: LocalDate?, actor: LedgerActor
    ) async throws -> PayCycleSetting {
        let far = effectiveFrom.adding(days: 100 * 366)
        if let settled = try await repository.payPeriods(overlapping: effectiveFrom...far)
            .first(where: { $0.state != .open })
        {
            throw DomainError(
                .conflict, "Period already approved",
                "the period \(settled.dates.start) to \(settled.dates.end) is \(settled.state.rawValue); "
                    + "a new cycle can start on \(settled.dates.end.adding(days: 1)) at the earliest")
        }
        let setting = PayCycleSetting(cycle: cycle, anchor: anchor ?? effectiveFrom, effectiveFrom: effectiveFrom)
        try await settings.save(.payCycle(setting), actor: actor)
        return setting
    }

    // MARK: - Periods

    /// The periods that overlap `from...through` with their states (at most 400 of them).
    public func periods(from: LocalDate, through: LocalDate) async throws -> [PayPeriodView] {
        _ = try DateRange.checked(from: from, to: through, maximumDays: 3_700, limit: "at most ten years after 'from'")
        let computed = PayCalendar.periods(try await cycles(), from: from, through: through)
        let stored = try await repository.payPeriods(overlapping: from...through)
        var views = Dictionary(
            computed.map { ($0.start, PayPeriodView(dates: $0, state: .open)) }, uniquingKeysWith: { first, _ in first }
        )
        // A stored period keeps the dates it had when it was approved, whatever the cycle says now.
        for record in stored {
            views[record.dates.start] = PayPeriodView(
                dates: record.dates, state: record.state, changedAt: record.changedAt, changedBy: record.changedBy,
                lockedAt: record.lockedAt)
        }
        return Array(views.values.sorted { $0.dates.start < $1.dates.start }.prefix(400))
    }

    /// Applies `event` to the period that starts on `start`; returns it as it is now.
    public func change(
        start: LocalDate, _ event: PayPeriodMachine.Event, actor: LedgerActor
    ) async throws
        -> PayPeriodView
    {
        let period = try await period(startingOn: start)
        var machine = PayPeriodMachine(state: period.state)
        let now = environment.now()
        // Days still running can't be locked (a day's rows are provisional while phones may hold
        // events): the period's last day must be over at every site, in its own zone.
        if event == .lock {
            let sites = try await repository.sites()
            for (name, zone) in sites.map({ ($0.name, $0.timeZone) }) + (sites.isEmpty ? [("UTC", "UTC")] : []) {
                let today = SiteCalendar.date(of: now, in: TimeZone(identifier: zone) ?? .gmt)
                guard period.dates.end < today else {
                    throw DomainError(
                        .conflict, "Pay period not over",
                        "the period ends on \(period.dates.end) and it is still \(today) at \(name) (\(zone)); "
                            + "it can be locked once that day is over there")
                }
            }
        }
        var record = PayPeriodRecord(
            dates: period.dates, state: period.state, changedAt: now, changedBy: actor, lockedAt: period.lockedAt)
        var snapshot: [LockedDay] = []
        let kind: LedgerKind
        var reason: String?
        switch machine.handle(event) {
        case .refuse(let why):
            throw DomainError(.conflict, "Pay period is \(period.state.rawValue)", why)
        case .store(let state):
            record.state = state
            kind = state == .approved ? .payPeriodApproved : .payPeriodUnapproved
        case .lockWithSnapshot:
            record.state = .locked
            record.lockedAt = now
            kind = .payPeriodLocked
            snapshot = try await liveRows(of: period.dates).map { day in
                LockedDay(
                    periodStart: period.dates.start, userId: day.userId, siteId: day.siteId, date: day.date,
                    row: TimesheetDayCodec.encode(day))
            }
        case .reopenDiscardingSnapshot(let why):
            try InputRules.text("reason", why, maxLength: 500, allowEmpty: false)
            record.state = .open
            record.lockedAt = nil
            kind = .payPeriodReopened
            reason = why
        }
        var changes = [
            "state": LedgerChange(before: period.state.rawValue, after: record.state.rawValue),
            "end": LedgerChange(before: nil, after: period.dates.end.description),
        ]
        if record.state == .locked { changes["rows"] = LedgerChange(before: nil, after: "\(snapshot.count)") }
        let audit = LedgerEvent(
            .audit(.init(kind: kind, target: "payPeriod/\(period.dates.start)", changes: changes, reason: reason)),
            actor: actor, receivedAt: now)
        guard try await repository.changePayPeriod(record, from: period.state, snapshot: snapshot, audit: audit) else {
            throw DomainError(
                .conflict, "Pay period changed", "the period \(start) was changed by someone else; reload it")
        }
        return PayPeriodView(
            dates: record.dates, state: record.state, changedAt: now, changedBy: actor, lockedAt: record.lockedAt)
    }

    /// What the live rows of a locked period say that its locked rows don't.
    public func exceptions(start: LocalDate) async throws -> [PayPeriodLock.Exception] {
        let period = try await period(startingOn: start)
        guard period.state == .locked else { return [] }
        let locked = try await repository.lockedDays(periodStart: start).compactMap { TimesheetDayCodec.decode($0.row) }
        return PayPeriodLock.exceptions(locked: locked, live: try await liveRows(of: period.dates))
    }

    private func period(startingOn start: LocalDate) async throws -> PayPeriodView {
        guard let period = try await periods(from: start, through: start).first(where: { $0.dates.start == start })
        else {
            throw DomainError(
                .notFound, "Not found", "no pay period starts on \(start) (see GET /v1/admin/pay-periods)")
        }
        return period
    }

    /// The period's live rows, as if it were not locked.
    private func liveRows(of dates: PayPeriodDates) async throws -> [TimesheetDay] {
        var reader = try await timesheets.open(
            TimesheetQuery(from: dates.start, through: dates.end), ignoringLocks: true)
        var days: [TimesheetDay] = []
        while let chunk = try await reader.next() { days += chunk.flatMap(\.days) }
        return days
    }

}
