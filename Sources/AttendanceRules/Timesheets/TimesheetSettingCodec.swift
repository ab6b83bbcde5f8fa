import AttendanceModels
import Foundation

/// The audit trail's form of each timesheet setting: JSON with sorted keys, so a
/// `timesheetSetting.saved` row's before and after compare as text. (Until "2026-11-27 typed
/// timesheet settings" this text was also the stored form; the audit rows keep it unchanged.)
public enum TimesheetSettingCodec {
    package struct ShiftBody: Encodable, Hashable {
        package var weekday: String
        package var start: String
        package var end: String
        package var expectedMinutes: Int
    }

    package struct ScheduleBody: Encodable, Hashable {
        package var name: String
        package var shifts: [ShiftBody]
    }

    package struct AssignmentBody: Encodable, Hashable {
        package var userId: String
        package var siteId: String
        package var scheduleId: String
        package var from: String
        package var through: String?
    }

    package struct RulesBody: Encodable, Hashable {
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

    package struct HolidayBody: Encodable, Hashable {
        package var name: String
    }

    package struct LeaveBody: Encodable, Hashable {
        package var type: String
        package var note: String?
    }

    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package struct CycleBody: Encodable, Hashable {
        package var cycle: String
        package var anchor: String
    }

    /// `setting` as the audit trail records it.
    public static func auditText(_ setting: TimesheetSetting) -> String {
        String(decoding: body(setting), as: UTF8.self)
    }

    static func body(_ setting: TimesheetSetting) -> Data {
        switch setting {
        case .schedule(let schedule):
            let shifts = schedule.shifts.sorted { $0.key.rawValue < $1.key.rawValue }.map { day, shift in
                ShiftBody(
                    weekday: day.name, start: clockText(shift.startMinute), end: clockText(shift.endMinute),
                    expectedMinutes: shift.expectedMinutes)
            }
            return encode(ScheduleBody(name: schedule.name, shifts: shifts))
        case .assignment(let assignment):
            return encode(
                AssignmentBody(
                    userId: assignment.userId.rawValue, siteId: assignment.siteId.rawValue,
                    scheduleId: assignment.scheduleId.rawValue, from: assignment.from.description,
                    through: assignment.through?.description))
        case .siteRules(_, let rules):
            let policy = rules.policy
            return encode(
                RulesBody(
                    dayBoundary: policy.dayBoundary.rawValue, lateGraceMinutes: policy.lateGraceMinutes,
                    earlyGraceMinutes: policy.earlyGraceMinutes, halfDayBelowMinutes: policy.halfDayBelowMinutes,
                    absentBelowMinutes: policy.absentBelowMinutes, breakRules: policy.breakRules,
                    breakMinimumMinutes: policy.breakMinimumMinutes,
                    overtimeCountsEarlyArrival: policy.overtimeCountsEarlyArrival,
                    defaultScheduleId: rules.defaultScheduleId?.rawValue))
        case .holiday(let holiday):
            return encode(HolidayBody(name: holiday.name))
        case .leave(let leave):
            return encode(LeaveBody(type: leave.type, note: leave.note))
        case .payCycle(let setting):
            return encode(CycleBody(cycle: setting.cycle.rawValue, anchor: setting.anchor.description))
        }
    }

    static func encode<Body: Encodable>(_ body: Body) -> Data {
        // Plain strings, numbers and booleans: encoding cannot fail.
        (try? encoder.encode(body)) ?? Data("{}".utf8)
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
