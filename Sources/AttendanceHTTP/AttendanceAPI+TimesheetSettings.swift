import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// Schedules, assignments, a site's timesheet rules, holidays and leave: the contract's types to
/// `TimesheetSettingsService` and back.
extension AttendanceAPI {
    // MARK: Schedules

    func listSchedules(_ input: Operations.ListSchedules.Input) async throws -> Operations.ListSchedules.Output {
        .ok(.init(body: .json(try await timesheetSettings.schedules().map(Self.schedule))))
    }

    func getSchedule(_ input: Operations.GetSchedule.Input) async throws -> Operations.GetSchedule.Output {
        .ok(
            .init(
                body: .json(
                    Self.schedule(
                        try await timesheetSettings.schedule(id: try Self.id("scheduleId", input.path.scheduleId))))))
    }

    func saveSchedule(_ input: Operations.SaveSchedule.Input) async throws -> Operations.SaveSchedule.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        var shifts: [Weekday: ScheduledShift] = [:]
        for (index, shift) in body.shifts.enumerated() {
            guard let day = Weekday(name: shift.weekday.rawValue) else { continue }
            guard shifts[day] == nil else {
                throw DomainError.field(
                    "shifts[\(index)].weekday", day.name, expected: "each weekday at most once", kind: .unprocessable)
            }
            shifts[day] = ScheduledShift(
                startMinute: try Self.clock("shifts[\(index)].start", shift.start),
                endMinute: try Self.clock("shifts[\(index)].end", shift.end), expectedMinutes: shift.expectedMinutes)
        }
        let saved = try await timesheetSettings.saveSchedule(
            WorkSchedule(id: try Self.id("scheduleId", input.path.scheduleId), name: body.name, shifts: shifts),
            actor: try Caller.actor())
        return .ok(.init(body: .json(Self.schedule(saved))))
    }

    func deleteSchedule(_ input: Operations.DeleteSchedule.Input) async throws -> Operations.DeleteSchedule.Output {
        try await timesheetSettings.deleteSchedule(
            id: try Self.id("scheduleId", input.path.scheduleId), actor: try Caller.actor())
        return .noContent(.init())
    }

    // MARK: Assignments

    func listScheduleAssignments(
        _ input: Operations.ListScheduleAssignments.Input
    ) async throws
        -> Operations.ListScheduleAssignments.Output
    {
        let user = try input.query.userId.map { UserID(try Self.id("userId", $0)) }
        return .ok(.init(body: .json(try await timesheetSettings.assignments(userId: user).map(Self.assignment))))
    }

    func createScheduleAssignment(
        _ input: Operations.CreateScheduleAssignment.Input
    ) async throws
        -> Operations.CreateScheduleAssignment.Output
    {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let assignment = try await timesheetSettings.assign(
            userId: try Self.id("userId", body.userId), siteId: try Self.id("siteId", body.siteId),
            scheduleId: try Self.id("scheduleId", body.scheduleId), from: try Self.localDate("from", body.from),
            through: try body.through.map { try Self.localDate("through", $0) }, actor: try Caller.actor())
        return .created(.init(body: .json(Self.assignment(assignment))))
    }

    func deleteScheduleAssignment(
        _ input: Operations.DeleteScheduleAssignment.Input
    ) async throws
        -> Operations.DeleteScheduleAssignment.Output
    {
        try await timesheetSettings.endAssignment(
            id: try Self.id("assignmentId", input.path.assignmentId), actor: try Caller.actor())
        return .noContent(.init())
    }

    // MARK: A site's rules

    func getTimesheetRules(
        _ input: Operations.GetTimesheetRules.Input
    ) async throws -> Operations.GetTimesheetRules.Output {
        let rules = try await timesheetSettings.rules(siteId: try Self.id("siteId", input.path.siteId))
        return .ok(.init(body: .json(Self.rules(rules.policy, defaultScheduleId: rules.defaultScheduleId))))
    }

    func saveTimesheetRules(
        _ input: Operations.SaveTimesheetRules.Input
    ) async throws
        -> Operations.SaveTimesheetRules.Output
    {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        var policy = TimesheetPolicy()
        policy.dayBoundary = DayBoundary(rawValue: body.dayBoundary.rawValue) ?? .calendar
        policy.lateGraceMinutes = body.lateGraceMinutes ?? 0
        policy.earlyGraceMinutes = body.earlyGraceMinutes ?? 0
        policy.halfDayBelowMinutes = body.halfDayBelowMinutes
        policy.absentBelowMinutes = body.absentBelowMinutes
        policy.breakRules = (body.breakRules ?? []).map {
            BreakRule(workedOverMinutes: $0.workedOverMinutes, breakMinutes: $0.breakMinutes)
        }
        policy.breakMinimumMinutes = body.breakMinimumMinutes ?? TimesheetPolicy().breakMinimumMinutes
        policy.overtimeCountsEarlyArrival = body.overtimeCountsEarlyArrival ?? false
        let siteId: SiteID = try Self.id("siteId", input.path.siteId)
        let schedule = try body.defaultScheduleId.map { try Self.id("defaultScheduleId", $0) as ScheduleID }
        try await timesheetSettings.saveRules(
            siteId: siteId, policy: policy, defaultScheduleId: schedule, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.rules(policy, defaultScheduleId: schedule))))
    }

    // MARK: Holidays

    func listHolidays(_ input: Operations.ListHolidays.Input) async throws -> Operations.ListHolidays.Output {
        let siteId: SiteID = try Self.id("siteId", input.path.siteId)
        return .ok(
            .init(
                body: .json(
                    try await timesheetSettings.holidays(siteId: siteId).map {
                        .init(siteId: siteId.rawValue, date: $0.date.description, name: $0.name)
                    })))
    }

    func saveHoliday(_ input: Operations.SaveHoliday.Input) async throws -> Operations.SaveHoliday.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let siteId: SiteID = try Self.id("siteId", input.path.siteId)
        let date = try Self.localDate("date", input.path.date)
        try await timesheetSettings.saveHoliday(siteId: siteId, date: date, name: body.name, actor: try Caller.actor())
        return .ok(.init(body: .json(.init(siteId: siteId.rawValue, date: date.description, name: body.name))))
    }

    func deleteHoliday(_ input: Operations.DeleteHoliday.Input) async throws -> Operations.DeleteHoliday.Output {
        try await timesheetSettings.deleteHoliday(
            siteId: try Self.id("siteId", input.path.siteId), date: try Self.localDate("date", input.path.date),
            actor: try Caller.actor())
        return .noContent(.init())
    }

    // MARK: Leave

    func listLeave(_ input: Operations.ListLeave.Input) async throws -> Operations.ListLeave.Output {
        let dates = try DateRange.checked(
            from: try Self.localDate("from", input.query.from), to: try Self.localDate("to", input.query.to))
        let user = try input.query.userId.map { UserID(try Self.id("userId", $0)) }
        return .ok(.init(body: .json(try await timesheetSettings.leave(userId: user, dates: dates).map(Self.leave))))
    }

    func saveLeave(_ input: Operations.SaveLeave.Input) async throws -> Operations.SaveLeave.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let day = try await timesheetSettings.saveLeave(
            userId: try Self.id("userId", input.path.userId), date: try Self.localDate("date", input.path.date),
            siteId: try body.siteId.map { try Self.id("siteId", $0) }, type: body._type, note: body.note,
            actor: try Caller.actor())
        return .ok(.init(body: .json(Self.leave(day))))
    }

    func deleteLeave(_ input: Operations.DeleteLeave.Input) async throws -> Operations.DeleteLeave.Output {
        try await timesheetSettings.deleteLeave(
            userId: try Self.id("userId", input.path.userId), date: try Self.localDate("date", input.path.date),
            actor: try Caller.actor())
        return .noContent(.init())
    }

    // MARK: Records to the contract's types

    static func clock(_ field: String, _ text: String) throws -> Int {
        guard let minute = TimesheetSettingCodec.clockMinute(text) else {
            throw DomainError.field(field, InputRules.shown(text), expected: "a time HH:MM, 00:00 to 23:59")
        }
        return minute
    }

    static func schedule(_ schedule: WorkSchedule) -> Components.Schemas.Schedule {
        .init(
            id: schedule.id.rawValue, name: schedule.name,
            shifts: schedule.shifts.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { day, shift in
                guard let weekday = Components.Schemas.Shift.WeekdayPayload(rawValue: day.name) else { return nil }
                return .init(
                    weekday: weekday, start: TimesheetSettingCodec.clockText(shift.startMinute),
                    end: TimesheetSettingCodec.clockText(shift.endMinute), expectedMinutes: shift.expectedMinutes)
            })
    }

    static func assignment(_ assignment: ScheduleAssignment) -> Components.Schemas.ScheduleAssignment {
        .init(
            id: assignment.id.rawValue, userId: assignment.userId.rawValue, siteId: assignment.siteId.rawValue,
            scheduleId: assignment.scheduleId.rawValue, from: assignment.from.description,
            through: assignment.through?.description)
    }

    static func rules(_ policy: TimesheetPolicy, defaultScheduleId: ScheduleID?) -> Components.Schemas.TimesheetRules {
        .init(
            dayBoundary: .init(rawValue: policy.dayBoundary.rawValue) ?? .calendar,
            lateGraceMinutes: policy.lateGraceMinutes, earlyGraceMinutes: policy.earlyGraceMinutes,
            halfDayBelowMinutes: policy.halfDayBelowMinutes, absentBelowMinutes: policy.absentBelowMinutes,
            breakRules: policy.breakRules.map {
                .init(workedOverMinutes: $0.workedOverMinutes, breakMinutes: $0.breakMinutes)
            },
            breakMinimumMinutes: policy.breakMinimumMinutes,
            overtimeCountsEarlyArrival: policy.overtimeCountsEarlyArrival,
            defaultScheduleId: defaultScheduleId?.rawValue)
    }

    static func leave(_ day: LeaveDay) -> Components.Schemas.LeaveDay {
        .init(
            userId: day.userId.rawValue, siteId: day.siteId.rawValue, date: day.date.description, _type: day.type,
            note: day.note)
    }
}
