import AttendanceModels
import Foundation

/// A timesheet row as stored when its pay period is locked (JSON, times as seconds since 1970):
/// the one mapping between `TimesheetDay` and `lockedDays.row`.
public enum TimesheetDayCodec {
    struct Stored: Codable {
        var userId: String
        var siteId: String
        var date: String
        var timeZone: String
        var utcOffsetSeconds: [Int]
        var firstIn: Double?
        var lastOut: Double?
        var proposedEnd: Double?
        var workedMinutes: Int
        var measuredBreakMinutes: Int
        var deductedBreakMinutes: Int
        var eligibleMinutes: Int
        var expectedMinutes: Int?
        var scheduledStart: Double?
        var scheduledEnd: Double?
        var lateMinutes: Int
        var earlyMinutes: Int
        var overtimeMinutes: Int?
        var sessionCount: Int
        var status: String
        var flags: [String]
        var holiday: String?
        var leaveType: String?
        var leaveNote: String?
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
