import AttendanceModels
import AttendanceRules
import Foundation
import Testing

/// The stored timesheet settings read back strictly: each setting as it was saved, and a stored
/// body this release can't read is an error naming the setting, never skipped or defaulted.
@Suite struct TimesheetSettingCodecTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func row(_ kind: TimesheetSettingRow.Kind, _ body: String, id: String = "x") -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: kind, id: id, userId: "alice", siteId: "hq", date: LocalDate("2026-11-02"), body: Data(body.utf8),
            updatedAt: now)
    }

    @Test func eachSettingReadsBackAsSaved() throws {
        let schedule = WorkSchedule(
            id: "office", name: "Office",
            shifts: [.monday: ScheduledShift(startMinute: 540, endMinute: 1_020, expectedMinutes: 450)])
        #expect(try TimesheetSettingCodec.schedule(TimesheetSettingCodec.row(schedule, now: Self.now)) == schedule)
        let assignment = ScheduleAssignment(
            id: "asg-1", userId: "alice", siteId: "hq", scheduleId: "office", from: LocalDate("2026-11-02")!)
        #expect(
            try TimesheetSettingCodec.assignment(TimesheetSettingCodec.row(assignment, now: Self.now)) == assignment)
        var policy = TimesheetPolicy()
        policy.dayBoundary = .shiftStart
        let rules = try TimesheetSettingCodec.rules(
            TimesheetSettingCodec.row(siteId: "hq", policy: policy, defaultScheduleId: "office", now: Self.now))
        #expect(rules == SiteRules(policy: policy, defaultScheduleId: "office"))
    }

    @Test func aDayBoundaryThisReleaseDoesNotKnowIsAnError() throws {
        let saved = TimesheetSettingCodec.row(
            siteId: "hq", policy: TimesheetPolicy(), defaultScheduleId: nil, now: Self.now)
        let text = String(decoding: saved.body, as: UTF8.self).replacingOccurrences(
            of: #""dayBoundary":"calendar""#, with: #""dayBoundary":"lunar""#)
        let error = try #require(throws: TimesheetSettingReadError.self) {
            try TimesheetSettingCodec.rules(Self.row(.siteRules, text, id: "hq"))
        }
        #expect(error.description == "the stored siteRules 'hq' is not a day boundary this release knows, not 'lunar'")
    }

    @Test func aShiftThatCantBeReadStopsTheScheduleInsteadOfVanishing() throws {
        let body =
            #"{"name":"Office","shifts":[{"weekday":"funday","start":"09:00","end":"17:00","expectedMinutes":480}]}"#
        let error = try #require(throws: TimesheetSettingReadError.self) {
            try TimesheetSettingCodec.schedule(Self.row(.schedule, body, id: "office"))
        }
        #expect(error.id == "office")
        #expect(error.expected.contains("funday 09:00-17:00"))
    }

    @Test func aBodyOfTheWrongShapeIsAnErrorNamingTheSetting() throws {
        for kind in TimesheetSettingRow.Kind.allCases {
            let row = Self.row(kind, #"{"unexpected":true}"#, id: "broken")
            let error = try #require(throws: TimesheetSettingReadError.self, "\(kind)") {
                switch kind {
                case .schedule: _ = try TimesheetSettingCodec.schedule(row)
                case .assignment: _ = try TimesheetSettingCodec.assignment(row)
                case .siteRules: _ = try TimesheetSettingCodec.rules(row)
                case .holiday: _ = try TimesheetSettingCodec.holiday(row)
                case .leave: _ = try TimesheetSettingCodec.leave(row)
                case .payCycle: _ = try TimesheetSettingCodec.cycle(row)
                }
            }
            #expect(error.kind == kind)
            #expect(error.id == "broken")
        }
    }
}
