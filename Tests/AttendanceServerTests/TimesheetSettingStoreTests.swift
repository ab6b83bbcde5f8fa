import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// Each kind of timesheet setting in its own typed table: read back as it was saved, replaced and
/// removed whole (a schedule's shifts, a site's break rules), and a stored value this release
/// can't read is an error naming the table, the row and the column, never skipped or defaulted.
@Suite struct TimesheetSettingStoreTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func audit(_ key: TimesheetSettingKey) -> LedgerEvent {
        LedgerEvent.timesheetSetting(
            key, userId: nil, change: LedgerChange(before: nil, after: "{}"), removed: false, actor: .adminToken,
            now: now)
    }

    static var settings: [TimesheetSetting] {
        var policy = TimesheetPolicy()
        policy.dayBoundary = .shiftStart
        policy.halfDayBelowMinutes = 240
        policy.breakRules = [
            BreakRule(workedOverMinutes: 360, breakMinutes: 30), BreakRule(workedOverMinutes: 540, breakMinutes: 15),
        ]
        policy.overtimeCountsEarlyArrival = true
        return [
            .schedule(
                WorkSchedule(
                    id: "office", name: "Office",
                    shifts: [
                        .monday: ScheduledShift(startMinute: 540, endMinute: 1_020, expectedMinutes: 450),
                        .sunday: ScheduledShift(startMinute: 1_320, endMinute: 360, expectedMinutes: 480),
                    ])),
            .assignment(
                ScheduleAssignment(
                    id: "asg-1", userId: "alice", siteId: "hq", scheduleId: "office", from: LocalDate("2026-11-02")!,
                    through: LocalDate("2026-12-31"))),
            .siteRules("hq", SiteRules(policy: policy, defaultScheduleId: "office")),
            .holiday(Holiday(siteId: "hq", date: LocalDate("2026-12-25")!, name: "Christmas Day")),
            .leave(LeaveDay(userId: "alice", siteId: "hq", date: LocalDate("2026-11-20")!, type: "sick", note: nil)),
            .payCycle(
                PayCycleSetting(
                    cycle: .biweekly, anchor: LocalDate("2026-11-02")!, effectiveFrom: LocalDate("2026-11-16")!)),
        ]
    }

    @Test(arguments: Backend.allCases) func eachSettingReadsBackAsSaved(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        for setting in Self.settings {
            try await repository.putTimesheetSetting(setting, updatedAt: Self.now, audit: Self.audit(setting.key))
            #expect(try await repository.timesheetSetting(setting.key) == setting)
        }
        #expect(try await repository.schedules().map { TimesheetSetting.schedule($0) } == [Self.settings[0]])
        #expect(try await repository.assignments(userId: "alice").map { .assignment($0) } == [Self.settings[1]])
        #expect(try await repository.assignments(userId: "bob").isEmpty)
        #expect(try await repository.siteRules().map { .siteRules($0.key, $0.value) } == [Self.settings[2]])
        let december = LocalDate("2026-12-01")!...LocalDate("2026-12-31")!
        #expect(try await repository.holidays(siteId: nil, dates: december).map { .holiday($0) } == [Self.settings[3]])
        #expect(try await repository.holidays(siteId: "annex", dates: nil).isEmpty)
        #expect(try await repository.leaveDays(userId: nil, dates: december).isEmpty)
        #expect(try await repository.leaveDays(userId: "alice", dates: nil).map { .leave($0) } == [Self.settings[4]])
        #expect(try await repository.payCycles().map { .payCycle($0) } == [Self.settings[5]])
    }

    @Test(arguments: Backend.allCases) func aReplacedSettingKeepsNothingOfTheOldOne(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        for setting in Self.settings {
            try await repository.putTimesheetSetting(setting, updatedAt: Self.now, audit: Self.audit(setting.key))
        }
        let shorter = WorkSchedule(
            id: "office", name: "Office (winter)",
            shifts: [.tuesday: ScheduledShift(startMinute: 600, endMinute: 960, expectedMinutes: 360)])
        try await repository.putTimesheetSetting(
            .schedule(shorter), updatedAt: Self.now, audit: Self.audit(.schedule("office")))
        #expect(try await repository.schedules() == [shorter])
        try await repository.putTimesheetSetting(
            .siteRules("hq", SiteRules()), updatedAt: Self.now, audit: Self.audit(.siteRules("hq")))
        #expect(try await repository.siteRules() == ["hq": SiteRules()])

        for setting in Self.settings {
            #expect(try await repository.deleteTimesheetSetting(setting.key, audit: Self.audit(setting.key)))
            #expect(try await repository.timesheetSetting(setting.key) == nil)
            #expect(try await !repository.deleteTimesheetSetting(setting.key, audit: Self.audit(setting.key)))
        }
        // The shifts and break rules went with their schedule and rules: saving again starts empty.
        let empty = WorkSchedule(id: "office", name: "Office", shifts: [:])
        try await repository.putTimesheetSetting(
            .schedule(empty), updatedAt: Self.now, audit: Self.audit(.schedule("office")))
        #expect(try await repository.schedules() == [empty])
    }

    @Test(arguments: Backend.allCases) func aStoredValueThisReleaseCantReadNamesItsRow(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        for setting in Self.settings {
            try await repository.putTimesheetSetting(setting, updatedAt: Self.now, audit: Self.audit(setting.key))
        }
        let broken: [(update: String, table: String, row: String, column: String, read: () async throws -> Void)] = [
            (
                "UPDATE site_rules SET day_boundary = 'lunar'", "site_rules", "hq", "day_boundary",
                { _ = try await repository.siteRules() }
            ),
            (
                "UPDATE pay_cycles SET cycle = 'fortnightly-ish'", "pay_cycles", "2026-11-16", "cycle",
                { _ = try await repository.payCycles() }
            ),
            (
                "UPDATE leave_days SET date = '20.11.2026'", "leave_days", "alice", "date",
                { _ = try await repository.leaveDays(userId: nil, dates: nil) }
            ),
            (
                "UPDATE schedule_assignments SET through_date = 'soon'", "schedule_assignments", "asg-1",
                "through_date", { _ = try await repository.assignments(userId: nil) }
            ),
        ]
        for case (let update, let table, let row, let column, let read) in broken {
            try await LedgerStoreTests.execute(update, on: repository)
            let error = try await #require(throws: StoredValueError.self, "\(table)") { try await read() }
            #expect(error.table == table)
            #expect(error.row == row)
            #expect(error.column == column)
        }
    }

    /// The audit trail's text of each setting is the JSON the settings table held until the typed
    /// tables: the rows written before and after read the same.
    @Test func theAuditTextKeepsItsShape() {
        let texts = Self.settings.map(TimesheetSettingCodec.auditText)
        #expect(
            texts == [
                #"{"name":"Office","shifts":[{"end":"17:00","expectedMinutes":450,"start":"09:00","weekday":"monday"},"#
                    + #"{"end":"06:00","expectedMinutes":480,"start":"22:00","weekday":"sunday"}]}"#,
                #"{"from":"2026-11-02","scheduleId":"office","siteId":"hq","through":"2026-12-31","userId":"alice"}"#,
                #"{"breakMinimumMinutes":15,"breakRules":[{"breakMinutes":30,"#
                    + #""workedOverMinutes":360},{"breakMinutes":15,"workedOverMinutes":540}],"#
                    + #""dayBoundary":"shiftStart","defaultScheduleId":"office","earlyGraceMinutes":0,"#
                    + #""halfDayBelowMinutes":240,"lateGraceMinutes":0,"overtimeCountsEarlyArrival":true}"#,
                #"{"name":"Christmas Day"}"#,
                #"{"type":"sick"}"#,
                #"{"anchor":"2026-11-02","cycle":"biweekly"}"#,
            ])
    }
}
