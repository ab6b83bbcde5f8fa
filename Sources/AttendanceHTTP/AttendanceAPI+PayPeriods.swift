import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// Pay cycles, pay periods and their exceptions: the contract's types to `PayPeriodService`.
extension AttendanceAPI {
    func listPayCycles(_ input: Operations.ListPayCycles.Input) async throws -> Operations.ListPayCycles.Output {
        .ok(.init(body: .json(try await payPeriods.cycles().map(Self.cycle))))
    }

    func savePayCycle(_ input: Operations.SavePayCycle.Input) async throws -> Operations.SavePayCycle.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let cycle = PayCycle(rawValue: body.cycle.rawValue) ?? .monthly
        let setting = try await payPeriods.saveCycle(
            cycle, effectiveFrom: try Self.localDate("effectiveFrom", input.path.effectiveFrom),
            anchor: try body.anchor.map { try Self.localDate("anchor", $0) }, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.cycle(setting))))
    }

    func listPayPeriods(_ input: Operations.ListPayPeriods.Input) async throws -> Operations.ListPayPeriods.Output {
        let periods = try await payPeriods.periods(
            from: try Self.localDate("from", input.query.from), through: try Self.localDate("to", input.query.to))
        return .ok(.init(body: .json(periods.map(Self.period))))
    }

    func changePayPeriod(_ input: Operations.ChangePayPeriod.Input) async throws -> Operations.ChangePayPeriod.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let reason = body.reason
        let event: PayPeriodMachine.Event
        switch body.action {
        case .approve: event = .approve
        case .unapprove: event = .unapprove
        case .lock: event = .lock
        case .reopen:
            guard let reason else {
                throw DomainError.field(
                    "reason", nil, expected: "why the locked period is reopened", kind: .unprocessable)
            }
            event = .reopen(reason: reason)
        }
        let period = try await payPeriods.change(
            start: try Self.localDate("start", input.path.start), event, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.period(period))))
    }

    func listPayPeriodExceptions(
        _ input: Operations.ListPayPeriodExceptions.Input
    ) async throws
        -> Operations.ListPayPeriodExceptions.Output
    {
        let found = try await payPeriods.exceptions(start: try Self.localDate("start", input.path.start))
        var names: [UserID: String] = [:]
        for employee in try await repository.employees() { names[employee.id] = employee.name }
        return .ok(
            .init(
                body: .json(
                    found.map { exception in
                        let name = names[exception.userId] ?? ""
                        return .init(
                            userId: exception.userId.rawValue, siteId: exception.siteId.rawValue,
                            date: exception.date.description, changed: exception.changed,
                            locked: exception.locked.map { Self.day($0, name: name) },
                            live: exception.live.map { Self.day($0, name: name) })
                    })))
    }

    static func cycle(_ setting: PayCycleSetting) -> Components.Schemas.PayCycle {
        .init(
            cycle: .init(rawValue: setting.cycle.rawValue) ?? .monthly, anchor: setting.anchor.description,
            effectiveFrom: setting.effectiveFrom.description)
    }

    static func period(_ period: PayPeriodView) -> Components.Schemas.PayPeriod {
        .init(
            start: period.dates.start.description, end: period.dates.end.description,
            state: .init(rawValue: period.state.rawValue) ?? .open, changedAt: period.changedAt,
            changedBy: period.changedBy?.rawValue, lockedAt: period.lockedAt)
    }
}
