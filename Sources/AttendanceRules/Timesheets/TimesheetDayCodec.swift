import AttendanceModels
import Foundation

/// A timesheet row as stored when its pay period is locked (JSON, times as seconds since 1970):
/// the one mapping between `TimesheetDay` and `lockedDays.row`.
public enum TimesheetDayCodec {
    package struct Stored: Codable {
        package var userId: String
        package var siteId: String
        package var date: String
        package var timeZone: String
        package var utcOffsetSeconds: [Int]
        package var firstIn: Double?
        package var lastOut: Double?
        package var proposedEnd: Double?
        package var workedMinutes: Int
        package var measuredBreakMinutes: Int
        package var deductedBreakMinutes: Int
        package var eligibleMinutes: Int
        package var expectedMinutes: Int?
        package var scheduledStart: Double?
        package var scheduledEnd: Double?
        package var lateMinutes: Int
        package var earlyMinutes: Int
        package var overtimeMinutes: Int?
        package var sessionCount: Int
        package var status: String
        package var flags: [String]
        package var holiday: String?
        package var leaveType: String?
        package var leaveNote: String?
    }

    public static func encode(_ day: TimesheetDay) -> Data {
        let stored = Stored(
            userId: day.userId.rawValue, siteId: day.siteId.rawValue, date: day.date.description,
            timeZone: day.timeZone, utcOffsetSeconds: day.utcOffsetSeconds,
            firstIn: day.firstIn?.timeIntervalSince1970, lastOut: day.lastOut?.timeIntervalSince1970,
            proposedEnd: day.proposedEnd?.timeIntervalSince1970, workedMinutes: day.workedMinutes,
            measuredBreakMinutes: day.measuredBreakMinutes, deductedBreakMinutes: day.deductedBreakMinutes,
            eligibleMinutes: day.eligibleMinutes, expectedMinutes: day.expectedMinutes,
            scheduledStart: day.scheduledStart?.timeIntervalSince1970,
            scheduledEnd: day.scheduledEnd?.timeIntervalSince1970, lateMinutes: day.lateMinutes,
            earlyMinutes: day.earlyMinutes, overtimeMinutes: day.overtimeMinutes, sessionCount: day.sessionCount,
            status: day.status.rawValue, flags: day.sortedFlags.map(\.rawValue), holiday: day.holiday,
            // The leave note is not kept in a locked copy: it can be health data, and a lock is forever.
            leaveType: day.leaveType, leaveNote: nil)
        return (try? TimesheetSettingCodec.encoder.encode(stored)) ?? Data("{}".utf8)
    }

    /// The leave type a locked row shows once its employee is erased: a leave day is still a leave
    /// day in the hours, but which kind (sick leave is health data) goes with the person.
    public static let erasedLeaveType = "erased"

    /// `data` with its leave type erased, or nil when it names none (or is not a stored row).
    public static func erasingLeave(_ data: Data) -> Data? {
        guard var stored = try? JSONDecoder().decode(Stored.self, from: data), stored.leaveType != nil,
            stored.leaveType != erasedLeaveType || stored.leaveNote != nil
        else { return nil }
        stored.leaveType = erasedLeaveType
        stored.leaveNote = nil
        return try? TimesheetSettingCodec.encoder.encode(stored)
    }

    public static func decode(_ data: Data) -> TimesheetDay? {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: data), let date = LocalDate(stored.date),
            let status = DayStatus(rawValue: stored.status)
        else { return nil }
        func instant(_ seconds: Double?) -> Date? { seconds.map(Date.init(timeIntervalSince1970:)) }
        return TimesheetDay(
            userId: UserID(stored.userId), siteId: SiteID(stored.siteId), date: date, timeZone: stored.timeZone,
            utcOffsetSeconds: stored.utcOffsetSeconds, firstIn: instant(stored.firstIn),
            lastOut: instant(stored.lastOut), proposedEnd: instant(stored.proposedEnd),
            workedMinutes: stored.workedMinutes, measuredBreakMinutes: stored.measuredBreakMinutes,
            deductedBreakMinutes: stored.deductedBreakMinutes, eligibleMinutes: stored.eligibleMinutes,
            expectedMinutes: stored.expectedMinutes, scheduledStart: instant(stored.scheduledStart),
            scheduledEnd: instant(stored.scheduledEnd), lateMinutes: stored.lateMinutes,
            earlyMinutes: stored.earlyMinutes, overtimeMinutes: stored.overtimeMinutes,
            sessionCount: stored.sessionCount, status: status,
            flags: Set(stored.flags.compactMap(DayFlag.init(rawValue:))), holiday: stored.holiday,
            leaveType: stored.leaveType, leaveNote: stored.leaveNote)
    }
}
