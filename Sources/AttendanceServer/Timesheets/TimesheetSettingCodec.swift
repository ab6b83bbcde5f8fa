import AttendanceModels
import Foundation

/// The stored form of each timesheet setting (the `body` of a `TimesheetSettingRow`): JSON with
/// sorted keys, so the audit row's before and after compare as text. The one mapping between the
/// settings table and the timesheet's types.
public enum TimesheetSettingCodec {
    struct ShiftBody: Codable, Hashable {
        var weekday: String
        var start: String
        var end: String
        var expectedMinutes: Int
    }

    struct ScheduleBody: Codable, Hashable {
        var name: String
        var shifts: [ShiftBody]
    }

    struct AssignmentBody: Codable, Hashable {
        var userId: String
        var siteId: String
        var scheduleId: String
        var from: String
        var through: String?
    }

    struct RulesBody: Codable, Hashable {
        var dayBoundary: String
        var lateGraceMinutes: Int
        var earlyGraceMinutes: Int
        var halfDayBelowMinutes: Int?
        var absentBelowMinutes: Int?
        var breakRules: [BreakRule]
        var breakMinimumMinutes: Int
        var overtimeCountsEarlyArrival: Bool
        var defaultScheduleId: String?
    }

    struct HolidayBody: Codable, Hashable {
        var name: String
    }

    struct LeaveBody: Codable, Hashable {
        var type: String
        var note: String?
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encode<Body: Encodable>(_ body: Body) -> Data {
        // Plain strings, numbers and booleans: encoding cannot fail.
        (try? encoder.encode(body)) ?? Data("{}".utf8)
    }

    static func decode<Body: Decodable>(_ type: Body.Type, _ row: TimesheetSettingRow) -> Body? {
        try? JSONDecoder().decode(type, from: row.body)
    }

    // MARK: - Schedules

    public static func row(_ schedule: WorkSchedule, now: Date) -> TimesheetSettingRow {
        let shifts = schedule.shifts.sorted { $0.key.rawValue < $1.key.rawValue }.map { day, shift in
            ShiftBody(
                weekday: day.name, start: clockText(shift.startMinute), end: clockText(shift.endMinute),
                expectedMinutes: shift.expectedMinutes)
        }
        return TimesheetSettingRow(
            kind: .schedule, id: schedule.id, body: encode(ScheduleBody(name: schedule.name, shifts: shifts)),
            updatedAt: now)
    }

    public static func schedule(_ row: TimesheetSettingRow) -> WorkSchedule? {
        guard let body = decode(ScheduleBody.self, row) else { return nil }
        var shifts: [Weekday: ScheduledShift] = [:]
        for shift in body.shifts {
            guard let day = Weekday(name: shift.weekday), let start = clockMinute(shift.start),
                let end = clockMinute(shift.end)
            else { continue }
            shifts[day] = ScheduledShift(startMinute: start, endMinute: end, expectedMinutes: shift.expectedMinutes)
        }
        return WorkSchedule(id: row.id, name: body.name, shifts: shifts)
    }

    // MARK: - Assignments

    public static func row(_ assignment: ScheduleAssignment, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .assignment, id: assignment.id, userId: assignment.userId, siteId: assignment.siteId,
            body: encode(
                AssignmentBody(
                    userId: assignment.userId.rawValue, siteId: assignment.siteId.rawValue,
                    scheduleId: assignment.scheduleId, from: assignment.from.description,
                    through: assignment.through?.description)),
            updatedAt: now)
    }

    public static func assignment(_ row: TimesheetSettingRow) -> ScheduleAssignment? {
        guard let body = decode(AssignmentBody.self, row), let from = LocalDate(body.from) else { return nil }
        return ScheduleAssignment(
            id: row.id, userId: UserID(body.userId), siteId: SiteID(body.siteId), scheduleId: body.scheduleId,
            from: from, through: body.through.flatMap(LocalDate.init))
    }

    // MARK: - A site's rules

    public static func row(
        siteId: SiteID, policy: TimesheetPolicy, defaultScheduleId: String?, now: Date
    ) -> TimesheetSettingRow {
        let body = RulesBody(
            dayBoundary: policy.dayBoundary.rawValue, lateGraceMinutes: policy.lateGraceMinutes,
            earlyGraceMinutes: policy.earlyGraceMinutes, halfDayBelowMinutes: policy.halfDayBelowMinutes,
            absentBelowMinutes: policy.absentBelowMinutes, breakRules: policy.breakRules,
            breakMinimumMinutes: policy.breakMinimumMinutes,
            overtimeCountsEarlyArrival: policy.overtimeCountsEarlyArrival, defaultScheduleId: defaultScheduleId)
        return TimesheetSettingRow(
            kind: .siteRules, id: siteId.rawValue, siteId: siteId, body: encode(body), updatedAt: now)
    }

    public static func rules(_ row: TimesheetSettingRow) -> (policy: TimesheetPolicy, defaultScheduleId: String?)? {
        guard let body = decode(RulesBody.self, row) else { return nil }
        var policy = TimesheetPolicy()
        policy.dayBoundary = DayBoundary(rawValue: body.dayBoundary) ?? .calendar
        policy.lateGraceMinutes = body.lateGraceMinutes
        policy.earlyGraceMinutes = body.earlyGraceMinutes
        policy.halfDayBelowMinutes = body.halfDayBelowMinutes
        policy.absentBelowMinutes = body.absentBelowMinutes
        policy.breakRules = body.breakRules
        policy.breakMinimumMinutes = body.breakMinimumMinutes
        policy.overtimeCountsEarlyArrival = body.overtimeCountsEarlyArrival
        return (policy, body.defaultScheduleId)
    }

    // MARK: - Holidays and leave

    public static func holidayRow(siteId: SiteID, date: LocalDate, name: String, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .holiday, id: "\(siteId.rawValue)/\(date)", siteId: siteId, date: date,
            body: encode(HolidayBody(name: name)), updatedAt: now)
    }

    public static func holiday(_ row: TimesheetSettingRow) -> (siteId: SiteID, date: LocalDate, name: String)? {
        guard let siteId = row.siteId, let date = row.date, let body = decode(HolidayBody.self, row) else { return nil }
        return (siteId, date, body.name)
    }

    public static func row(_ leave: LeaveDay, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .leave, id: "\(leave.userId.rawValue)/\(leave.date)", userId: leave.userId, siteId: leave.siteId,
            date: leave.date, body: encode(LeaveBody(type: leave.type, note: leave.note)), updatedAt: now)
    }

    public static func leave(_ row: TimesheetSettingRow) -> LeaveDay? {
        guard let userId = row.userId, let siteId = row.siteId, let date = row.date,
            let body = decode(LeaveBody.self, row)
        else { return nil }
        return LeaveDay(userId: userId, siteId: siteId, date: date, type: body.type, note: body.note)
    }

    // MARK: - Pay cycles

    struct CycleBody: Codable, Hashable {
        var cycle: String
        var anchor: String
    }

    public static func row(_ setting: PayCycleSetting, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .payCycle, id: setting.effectiveFrom.description, date: setting.effectiveFrom,
            body: encode(CycleBody(cycle: setting.cycle.rawValue, anchor: setting.anchor.description)), updatedAt: now)
    }

    public static func cycle(_ row: TimesheetSettingRow) -> PayCycleSetting? {
        guard let from = row.date, let body = decode(CycleBody.self, row), let cycle = PayCycle(rawValue: body.cycle),
            let anchor = LocalDate(body.anchor)
        else { return nil }
        return PayCycleSetting(cycle: cycle, anchor: anchor, effectiveFrom: from)
    }

    // MARK: - Wall-clock times

    /// `HH:MM`, 00:00 to 23:59.
    public static func clockMinute(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard text.utf8.count == 5, parts.count == 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    public static func clockText(_ minute: Int) -> String {
        zeroPadded(minute / 60, 2) + ":" + zeroPadded(minute % 60, 2)
    }
}
