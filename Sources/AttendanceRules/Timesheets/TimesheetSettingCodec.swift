import AttendanceModels
import Foundation

/// The stored form of each timesheet setting (the `body` of a `TimesheetSettingRow`): JSON with
/// sorted keys, so the audit row's before and after compare as text. The one mapping between the
/// settings table and the timesheet's types.
public enum TimesheetSettingCodec {
    package struct ShiftBody: Codable, Hashable {
        package var weekday: String
        package var start: String
        package var end: String
        package var expectedMinutes: Int
    }

    package struct ScheduleBody: Codable, Hashable {
        package var name: String
        package var shifts: [ShiftBody]
    }

    package struct AssignmentBody: Codable, Hashable {
        package var userId: String
        package var siteId: String
        package var scheduleId: String
        package var from: String
        package var through: String?
    }

    package struct RulesBody: Codable, Hashable {
        package var dayBoundary: String
        package var lateGraceMinutes: Int
        package var earlyGraceMinutes: Int
        package var halfDayBelowMinutes: Int?
        package var absentBelowMinutes: Int?
        package var breakRules: [BreakRule]
        package var breakMinimumMinutes: Int
        package var overtimeCountsEarlyArrival: Bool
        package var defaultScheduleId: String?
    }

    package struct HolidayBody: Codable, Hashable {
        package var name: String
    }

    package struct LeaveBody: Codable, Hashable {
        package var type: String
        package var note: String?
    }

    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static func encode<Body: Encodable>(_ body: Body) -> Data {
        // Plain strings, numbers and booleans: encoding cannot fail.
        (try? encoder.encode(body)) ?? Data("{}".utf8)
    }

    /// `row`'s body as `type`, or an error naming the row.
    package static func decode<Body: Decodable>(_ type: Body.Type, _ row: TimesheetSettingRow) throws -> Body {
        do {
            return try JSONDecoder().decode(type, from: row.body)
        } catch {
            throw TimesheetSettingReadError(row, "a body of its kind (\(error))")
        }
    }

    // MARK: - Schedules

    public static func row(_ schedule: WorkSchedule, now: Date) -> TimesheetSettingRow {
        let shifts = schedule.shifts.sorted { $0.key.rawValue < $1.key.rawValue }.map { day, shift in
            ShiftBody(
                weekday: day.name, start: clockText(shift.startMinute), end: clockText(shift.endMinute),
                expectedMinutes: shift.expectedMinutes)
        }
        return TimesheetSettingRow(
            kind: .schedule, id: schedule.id.rawValue, body: encode(ScheduleBody(name: schedule.name, shifts: shifts)),
            updatedAt: now)
    }

    public static func schedule(_ row: TimesheetSettingRow) throws -> WorkSchedule {
        let body = try decode(ScheduleBody.self, row)
        var shifts: [Weekday: ScheduledShift] = [:]
        for shift in body.shifts {
            guard let day = Weekday(name: shift.weekday), let start = clockMinute(shift.start),
                let end = clockMinute(shift.end)
            else {
                throw TimesheetSettingReadError(
                    row, "shifts with a weekday and HH:MM times, not \(shift.weekday) \(shift.start)-\(shift.end)")
            }
            shifts[day] = ScheduledShift(startMinute: start, endMinute: end, expectedMinutes: shift.expectedMinutes)
        }
        return WorkSchedule(id: ScheduleID(row.id), name: body.name, shifts: shifts)
    }

    // MARK: - Assignments

    public static func row(_ assignment: ScheduleAssignment, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .assignment, id: assignment.id.rawValue, userId: assignment.userId, siteId: assignment.siteId,
            body: encode(
                AssignmentBody(
                    userId: assignment.userId.rawValue, siteId: assignment.siteId.rawValue,
                    scheduleId: assignment.scheduleId.rawValue, from: assignment.from.description,
                    through: assignment.through?.description)),
            updatedAt: now)
    }

    public static func assignment(_ row: TimesheetSettingRow) throws -> ScheduleAssignment {
        let body = try decode(AssignmentBody.self, row)
        guard let from = LocalDate(body.from), body.through.map({ LocalDate($0) != nil }) ?? true else {
            throw TimesheetSettingReadError(row, "dates YYYY-MM-DD, not '\(body.from)' to '\(body.through ?? "")'")
        }
        return ScheduleAssignment(
            id: AssignmentID(row.id), userId: UserID(body.userId), siteId: SiteID(body.siteId),
            scheduleId: ScheduleID(body.scheduleId),
            from: from, through: body.through.flatMap(LocalDate.init))
    }

    // MARK: - A site's rules

    public static func row(
        siteId: SiteID, policy: TimesheetPolicy, defaultScheduleId: ScheduleID?, now: Date
    ) -> TimesheetSettingRow {
        let body = RulesBody(
            dayBoundary: policy.dayBoundary.rawValue, lateGraceMinutes: policy.lateGraceMinutes,
            earlyGraceMinutes: policy.earlyGraceMinutes, halfDayBelowMinutes: policy.halfDayBelowMinutes,
            absentBelowMinutes: policy.absentBelowMinutes, breakRules: policy.breakRules,
            breakMinimumMinutes: policy.breakMinimumMinutes,
            overtimeCountsEarlyArrival: policy.overtimeCountsEarlyArrival,
            defaultScheduleId: defaultScheduleId?.rawValue)
        return TimesheetSettingRow(
            kind: .siteRules, id: siteId.rawValue, siteId: siteId, body: encode(body), updatedAt: now)
    }

    public static func rules(_ row: TimesheetSettingRow) throws -> SiteRules {
        let body = try decode(RulesBody.self, row)
        guard let boundary = DayBoundary(rawValue: body.dayBoundary) else {
            throw TimesheetSettingReadError(
                row, "a day boundary this release knows, not '\(body.dayBoundary.prefix(40))'")
        }
        var policy = TimesheetPolicy()
        policy.dayBoundary = boundary
        policy.lateGraceMinutes = body.lateGraceMinutes
        policy.earlyGraceMinutes = body.earlyGraceMinutes
        policy.halfDayBelowMinutes = body.halfDayBelowMinutes
        policy.absentBelowMinutes = body.absentBelowMinutes
        policy.breakRules = body.breakRules
        policy.breakMinimumMinutes = body.breakMinimumMinutes
        policy.overtimeCountsEarlyArrival = body.overtimeCountsEarlyArrival
        return SiteRules(policy: policy, defaultScheduleId: body.defaultScheduleId.map { ScheduleID($0) })
    }

    // MARK: - Holidays and leave

    public static func holidayRow(siteId: SiteID, date: LocalDate, name: String, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .holiday, id: "\(siteId.rawValue)/\(date)", siteId: siteId, date: date,
            body: encode(HolidayBody(name: name)), updatedAt: now)
    }

    public static func holiday(_ row: TimesheetSettingRow) throws -> (siteId: SiteID, date: LocalDate, name: String) {
        let body = try decode(HolidayBody.self, row)
        guard let siteId = row.siteId, let date = row.date else {
            throw TimesheetSettingReadError(row, "a holiday with its site and date")
        }
        return (siteId, date, body.name)
    }

    public static func row(_ leave: LeaveDay, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .leave, id: "\(leave.userId.rawValue)/\(leave.date)", userId: leave.userId, siteId: leave.siteId,
            date: leave.date, body: encode(LeaveBody(type: leave.type, note: leave.note)), updatedAt: now)
    }

    public static func leave(_ row: TimesheetSettingRow) throws -> LeaveDay {
        let body = try decode(LeaveBody.self, row)
        guard let userId = row.userId, let siteId = row.siteId, let date = row.date else {
            throw TimesheetSettingReadError(row, "a leave day with its employee, site and date")
        }
        return LeaveDay(userId: userId, siteId: siteId, date: date, type: body.type, note: body.note)
    }

    // MARK: - Pay cycles

    package struct CycleBody: Codable, Hashable {
        package var cycle: String
        package var anchor: String
    }

    public static func row(_ setting: PayCycleSetting, now: Date) -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: .payCycle, id: setting.effectiveFrom.description, date: setting.effectiveFrom,
            body: encode(CycleBody(cycle: setting.cycle.rawValue, anchor: setting.anchor.description)), updatedAt: now)
    }

    public static func cycle(_ row: TimesheetSettingRow) throws -> PayCycleSetting {
        let body = try decode(CycleBody.self, row)
        guard let from = row.date, let cycle = PayCycle(rawValue: body.cycle), let anchor = LocalDate(body.anchor)
        else {
            throw TimesheetSettingReadError(
                row,
                "a pay cycle this release knows with its dates, not '\(body.cycle.prefix(40))' from '\(body.anchor)'")
        }
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

/// A site's timesheet rules and its default schedule, as stored.
public struct SiteRules: Hashable, Sendable {
    public var policy: TimesheetPolicy
    public var defaultScheduleId: ScheduleID?

    public init(policy: TimesheetPolicy = TimesheetPolicy(), defaultScheduleId: ScheduleID? = nil) {
        self.policy = policy
        self.defaultScheduleId = defaultScheduleId
    }
}

/// A stored timesheet setting this release can't read: which one, and what was expected. Never
/// skipped: a timesheet without one of its settings would be wrong without saying so.
public struct TimesheetSettingReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var kind: TimesheetSettingRow.Kind
    public var id: String
    public var expected: String

    package init(_ row: TimesheetSettingRow, _ expected: String) {
        self.kind = row.kind
        self.id = row.id
        self.expected = expected
    }

    public var description: String { "the stored \(kind.rawValue) '\(id)' is not \(expected)" }
}
