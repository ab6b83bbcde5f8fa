import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// Schedules, breaks, overtime, statuses and flags, one rule a test (docs/TIMESHEETS.md). No database.
@Suite struct TimesheetScheduleTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// Monday to Friday 09:00-17:00, 8 h.
    static let office = WorkSchedule(
        id: "office", name: "Office",
        shifts: Dictionary(
            uniqueKeysWithValues: [Weekday.monday, .tuesday, .wednesday, .thursday, .friday].map {
                ($0, ScheduledShift(startMinute: 540, endMinute: 1020, expectedMinutes: 480))
            }))
    static let monday = LocalDate("2026-06-01")!

    static func session(_ key: String, _ from: String, _ to: String?, lastSeen: String? = nil) -> SessionRecord {
        TimesheetFixtures.session(key, in: berlin, from: from, to: to, lastSeen: lastSeen)
    }

    static func sheet(
        _ sessions: [SessionRecord], policy: TimesheetPolicy = TimesheetPolicy(), assigned: Bool = true,
        through: LocalDate = monday, now: Date = TimesheetFixtures.later, holidays: [LocalDate: String] = [:],
        leave: [LeaveDay] = [], devices: Set<UserID> = [], lastHeard: [UserID: Date] = [:],
        schedule: WorkSchedule = office
    ) -> Timesheet {
        let site = TimesheetSite(
            id: TimesheetFixtures.site, timeZone: berlin, policy: policy,
            defaultScheduleId: assigned ? nil : schedule.id, holidays: holidays)
        let assignment = ScheduleAssignment(
            id: "a-1", userId: TimesheetFixtures.user, siteId: TimesheetFixtures.site, scheduleId: schedule.id,
            from: LocalDate("2026-01-01")!)
        return Timesheet.compute(
            TimesheetInput(
                from: monday, through: through, now: now, sites: [site.id: site], schedules: [schedule.id: schedule],
                assignments: assigned ? [assignment] : [], leave: leave, sessions: sessions,
                employeesWithDevices: devices, lastHeard: lastHeard))
    }

    static func day(_ sheet: Timesheet, _ date: String = "2026-06-01") -> TimesheetDay? {
        sheet.days.first { $0.date.description == date }
    }

    @Test func aDayOnTimeIsPresentWithItsExpectedHours() throws {
        let day = try #require(Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 17:00")])))
        #expect(day.status == .present)
        #expect((day.workedMinutes, day.expectedMinutes, day.lateMinutes, day.earlyMinutes) == (480, 480, 0, 0))
        #expect(day.overtimeMinutes == 0)
        #expect(day.scheduledStart == TimesheetFixtures.instant("2026-06-01 09:00", in: Self.berlin))
    }

    @Test func anArrivalAfterTheGraceIsLateByAllItsMinutes() throws {
        var policy = TimesheetPolicy()
        policy.lateGraceMinutes = 10
        let inGrace = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:08", "2026-06-01 17:00")], policy: policy)))
        #expect((inGrace.status, inGrace.lateMinutes) == (.present, 0))
        let late = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:25", "2026-06-01 17:00")], policy: policy)))
        #expect((late.status, late.lateMinutes) == (.late, 25))
    }

    @Test func aDepartureBeforeTheGraceIsEarly() throws {
        var policy = TimesheetPolicy()
        policy.earlyGraceMinutes = 5
        let day = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 16:30")], policy: policy)))
        #expect((day.earlyMinutes, day.status) == (30, .present))
    }

    @Test func lessThanTheHalfDayThresholdIsAHalfDayAndLessThanTheAbsentOneIsAbsent() throws {
        var policy = TimesheetPolicy()
        policy.halfDayBelowMinutes = 360
        policy.absentBelowMinutes = 120
        let half = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 13:00")], policy: policy)))
        #expect(half.status == .halfDay)
        let absent = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 10:00")], policy: policy)))
        #expect(absent.status == .absent)
        #expect(absent.workedMinutes == 60, "the hour worked still counts")
    }

    @Test func aScheduledDayWithNoSessionIsAbsentOnceItsShiftHasEnded() throws {
        let over = try #require(Self.day(Self.sheet([])))
        #expect((over.status, over.workedMinutes, over.expectedMinutes) == (.absent, 0, 480))
        let during = Self.sheet([], now: TimesheetFixtures.instant("2026-06-01 12:00", in: Self.berlin))
        #expect(Self.day(during) == nil, "not absent before the shift has ended")
    }

    @Test func aWeekendDayOfAnAssignedEmployeeIsOffAndAHolidayOrLeaveIsNeverAbsent() throws {
        let sheet = Self.sheet(
            [], through: LocalDate("2026-06-07")!, holidays: [LocalDate("2026-06-02")!: "Founders' Day"],
            leave: [
                LeaveDay(
                    userId: TimesheetFixtures.user, siteId: TimesheetFixtures.site, date: LocalDate("2026-06-03")!,
                    type: "vacation", note: "booked in March")
            ])
        #expect(
            sheet.days.map(\.status) == [.absent, .off, .leave, .absent, .absent, .off, .off],
            "Mon absent, Tue holiday, Wed leave, Thu-Fri absent, weekend off")
        #expect(Self.day(sheet, "2026-06-02")?.holiday == "Founders' Day")
        #expect(Self.day(sheet, "2026-06-03")?.leaveType == "vacation")
        #expect(Self.day(sheet, "2026-06-03")?.expectedMinutes == 0)
    }

    @Test func aMeasuredLunchIsABreakAndNothingMoreIsDeducted() throws {
        var policy = TimesheetPolicy()
        policy.breakRules = [BreakRule(workedOverMinutes: 360, breakMinutes: 30)]
        let day = try #require(
            Self.day(
                Self.sheet(
                    [
                        Self.session("a", "2026-06-01 08:30", "2026-06-01 12:30"),
                        Self.session("b", "2026-06-01 13:15", "2026-06-01 17:15"),
                    ], policy: policy)))
        #expect((day.measuredBreakMinutes, day.deductedBreakMinutes, day.workedMinutes) == (45, 0, 480))
        #expect(day.sessionCount == 2)
    }

    @Test func withoutAMeasuredBreakTheRuleIsDeductedAndShownApart() throws {
        var policy = TimesheetPolicy()
        policy.breakRules = [
            BreakRule(workedOverMinutes: 360, breakMinutes: 30), BreakRule(workedOverMinutes: 540, breakMinutes: 45),
        ]
        let day = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 17:30")], policy: policy)))
        #expect((day.measuredBreakMinutes, day.deductedBreakMinutes, day.workedMinutes) == (0, 30, 480))
        let short = try #require(
            Self.day(
                Self.sheet(
                    [
                        Self.session("a", "2026-06-01 09:00", "2026-06-01 12:00"),
                        Self.session("b", "2026-06-01 12:10", "2026-06-01 17:40"),
                    ], policy: policy)))
        #expect(
            (short.measuredBreakMinutes, short.deductedBreakMinutes, short.workedMinutes) == (10, 30, 480),
            "a 10-minute gap is below the 15-minute minimum: the whole rule is deducted")
        let justOver = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 15:10")], policy: policy)))
        #expect(
            (justOver.deductedBreakMinutes, justOver.workedMinutes) == (10, 360),
            "never deducted below the threshold that made it owed")
    }

    @Test func workingLongerNeverEarnsMoreThanItTook() throws {
        var policy = TimesheetPolicy()
        policy.breakRules = [
            BreakRule(workedOverMinutes: 360, breakMinutes: 30), BreakRule(workedOverMinutes: 540, breakMinutes: 45),
        ]
        let worked = try ["17:00", "17:10", "18:00", "18:30"].map { end in
            try #require(
                Self.day(Self.sheet([Self.session("a", "2026-06-01 08:00", "2026-06-01 \(end)")], policy: policy))
            ).workedMinutes
        }
        #expect(worked == [510, 520, 555, 585], "9:00, 9:10, 10:00 and 10:30 worked, 30 or 45 min deducted")
    }

    @Test func leaveWithoutAScheduleExpectsNothingAndMakesNoOvertime() throws {
        let leave = LeaveDay(
            userId: TimesheetFixtures.user, siteId: TimesheetFixtures.site, date: Self.monday, type: "vacation")
        let sessions = (2...5).map { Self.session("d\($0)", "2026-06-0\($0) 08:00", "2026-06-0\($0) 18:00") }
        let site = TimesheetSite(id: TimesheetFixtures.site, timeZone: Self.berlin)
        let sheet = Timesheet.compute(
            TimesheetInput(
                from: Self.monday, through: LocalDate("2026-06-07")!, now: TimesheetFixtures.later,
                sites: [site.id: site], leave: [leave], sessions: sessions))
        #expect(Self.day(sheet)?.status == .leave)
        #expect(Self.day(sheet)?.expectedMinutes == nil)
        #expect(sheet.weeks.first?.overtimeMinutes == nil, "no schedule: no weekly overtime, leave or not")
    }

    @Test func aNightScheduleUnderTheCalendarRuleBalancesOverTheWeek() throws {
        let night = WorkSchedule(
            id: "night", name: "Night",
            shifts: Dictionary(
                uniqueKeysWithValues: [Weekday.monday, .tuesday, .wednesday, .thursday, .friday].map {
                    ($0, ScheduledShift(startMinute: 1320, endMinute: 360, expectedMinutes: 480))
                }))
        let sessions = (1...5).map { day in
            Self.session("n\(day)", "2026-06-0\(day) 22:00", "2026-06-0\(day + 1) 06:00")
        }
        let sheet = Self.sheet(sessions, through: LocalDate("2026-06-07")!, schedule: night)
        let week = try #require(sheet.weeks.first)
        #expect((week.workedMinutes, week.expectedMinutes, week.overtimeMinutes) == (2_400, 2_400, 0))
        #expect(Self.day(sheet, "2026-06-02")?.measuredBreakMinutes == 0, "06:00 to 22:00 is time off, not a break")
        #expect(Self.day(sheet, "2026-06-02")?.status == .present)
    }

    @Test func overtimeByDayDoesNotCountAnEarlyArrivalUnlessTheSiteSaysSo() throws {
        let sessions = [Self.session("a", "2026-06-01 08:00", "2026-06-01 18:00")]
        let day = try #require(Self.day(Self.sheet(sessions)))
        #expect((day.workedMinutes, day.overtimeMinutes) == (600, 60))
        var counting = TimesheetPolicy()
        counting.overtimeCountsEarlyArrival = true
        let counted = try #require(Self.day(Self.sheet(sessions, policy: counting)))
        #expect(counted.overtimeMinutes == 120)
    }

    @Test func weeklyOvertimeIsTheWeeksEligibleTimeOverItsExpectedTime() throws {
        let sessions =
            (1...5).map { day in
                Self.session("d\(day)", "2026-06-0\(day) 09:00", "2026-06-0\(day) 18:00")
            } + [Self.session("sat", "2026-06-06 10:00", "2026-06-06 12:00")]
        let sheet = Self.sheet(sessions, through: LocalDate("2026-06-07")!)
        let week = try #require(sheet.weeks.first)
        #expect((week.workedMinutes, week.expectedMinutes, week.overtimeMinutes) == (2_820, 2_400, 420))
        #expect(Self.day(sheet, "2026-06-06")?.overtimeMinutes == 120, "a day off worked is all overtime")
    }

    @Test func anOpenSessionSilentFor12HoursIsCountedToItsLastEvidenceAndItsEndIsUnconfirmed() throws {
        let now = TimesheetFixtures.instant("2026-06-02 02:00", in: Self.berlin)
        let sheet = Self.sheet(
            [Self.session("a", "2026-06-01 09:00", nil, lastSeen: "2026-06-01 14:00")], now: now)
        let day = try #require(Self.day(sheet))
        #expect(day.flags.isSuperset(of: [.open, .endUnconfirmed]))
        #expect(day.workedMinutes == 300, "09:00 to the last heartbeat at 14:00, not to midnight or now")
        #expect(day.proposedEnd == TimesheetFixtures.instant("2026-06-01 14:00", in: Self.berlin))
        #expect(day.lastOut == nil)
        #expect(day.earlyMinutes == 0, "no early departure is claimed for an end nobody knows")
    }

    @Test func anOpenSessionHeardFromRecentlyIsOpenButNotUnconfirmed() throws {
        let now = TimesheetFixtures.instant("2026-06-01 14:30", in: Self.berlin)
        let day = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", nil, lastSeen: "2026-06-01 14:00")], now: now)))
        #expect(day.flags.contains(.open))
        #expect(!day.flags.contains(.endUnconfirmed))
    }

    @Test func aDayIsProvisionalUntilTheDeviceIsHeardFromAfterItEnds() throws {
        let sessions = [Self.session("a", "2026-06-01 09:00", "2026-06-01 17:00")]
        let user = TimesheetFixtures.user
        let nextMorning = TimesheetFixtures.instant("2026-06-02 08:00", in: Self.berlin)
        let silent = Self.sheet(
            sessions, now: nextMorning, devices: [user],
            lastHeard: [user: TimesheetFixtures.instant("2026-06-01 17:00", in: Self.berlin)])
        #expect(Self.day(silent)?.flags.contains(.provisional) == true)
        let synced = Self.sheet(
            sessions, now: nextMorning, devices: [user],
            lastHeard: [user: TimesheetFixtures.instant("2026-06-02 07:30", in: Self.berlin)])
        #expect(Self.day(synced)?.flags.contains(.provisional) == false)
        let threeDaysOn = Self.sheet(
            sessions, now: TimesheetFixtures.instant("2026-06-05 00:30", in: Self.berlin), devices: [user],
            lastHeard: [user: TimesheetFixtures.instant("2026-06-01 17:00", in: Self.berlin)])
        #expect(Self.day(threeDaysOn)?.flags.contains(.provisional) == false, "final after 72 h")
        #expect(
            Self.day(Self.sheet(sessions, now: nextMorning))?.flags.contains(.provisional) == false,
            "no device: nothing can still be on a phone")
    }

    @Test func aNightScheduleIsJudgedByTheSessionsThatCoverIt() throws {
        let night = WorkSchedule(
            id: "night", name: "Night",
            shifts: [.monday: ScheduledShift(startMinute: 1320, endMinute: 360, expectedMinutes: 480)])
        var policy = TimesheetPolicy()
        policy.dayBoundary = .shiftStart
        let sheet = Self.sheet(
            [Self.session("a", "2026-06-01 22:20", "2026-06-02 06:00")], policy: policy, schedule: night)
        let day = try #require(Self.day(sheet))
        #expect((day.status, day.lateMinutes, day.earlyMinutes, day.workedMinutes) == (.late, 20, 0, 460))
        #expect(day.scheduledEnd == TimesheetFixtures.instant("2026-06-02 06:00", in: Self.berlin))
    }

    @Test func beforeTheShiftEndsALunchIsNotAnEarlyDepartureNorAHalfDay() throws {
        var policy = TimesheetPolicy()
        policy.halfDayBelowMinutes = 360
        let lunch = TimesheetFixtures.instant("2026-06-01 12:30", in: Self.berlin)
        let today = try #require(
            Self.day(
                Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 12:00")], policy: policy, now: lunch)))
        #expect((today.status, today.earlyMinutes) == (.present, 0))
        let evening = try #require(
            Self.day(Self.sheet([Self.session("a", "2026-06-01 09:00", "2026-06-01 12:00")], policy: policy)))
        #expect((evening.status, evening.earlyMinutes) == (.halfDay, 300))
    }

    @Test func workDoneEntirelyOutsideTheShiftIsPresentNotLateByHours() throws {
        let day = try #require(Self.day(Self.sheet([Self.session("a", "2026-06-01 21:30", "2026-06-01 23:30")])))
        #expect((day.status, day.lateMinutes, day.earlyMinutes, day.workedMinutes) == (.present, 0, 0, 120))
        #expect(day.overtimeMinutes == 0, "120 worked against 480 expected")
    }

    @Test func aSiteDefaultScheduleAppliesToDaysWorkedThereWithoutAnAssignment() throws {
        let sheet = Self.sheet(
            [Self.session("a", "2026-06-01 09:00", "2026-06-01 17:30")], assigned: false,
            through: LocalDate("2026-06-07")!)
        #expect(sheet.days.count == 1, "no assignment: no absent or off rows for days not worked")
        #expect(Self.day(sheet)?.overtimeMinutes == 30)
    }

    @Test func aVoidedSessionCountsNowhere() {
        var voided = Self.session("a", "2026-06-01 09:00", "2026-06-01 17:00")
        voided.voidedAt = TimesheetFixtures.later
        #expect(Self.day(Self.sheet([voided]))?.status == .absent)
    }

    @Test func theSameInputGivesTheSameRowsWhateverTheOrderOfItsSessions() {
        let sessions = (1...5).flatMap { day in
            [
                Self.session("m\(day)", "2026-06-0\(day) 08:00", "2026-06-0\(day) 12:00"),
                Self.session("a\(day)", "2026-06-0\(day) 12:40", "2026-06-0\(day) 17:00"),
            ]
        }
        let reference = Self.sheet(sessions, through: LocalDate("2026-06-07")!)
        for seed in 1...5 {
            var generator = SplitMix64(seed: UInt64(seed))
            let shuffled = Self.sheet(sessions.shuffled(using: &generator), through: LocalDate("2026-06-07")!)
            #expect(shuffled.days == reference.days)
            #expect(shuffled.weeks == reference.weeks)
        }
    }

    /// A shift's wall times are read as RFC 5545 reads them (a skipped time falls as far past the
    /// gap, a repeated one is its first occurrence), and its expected minutes follow the clock.
    @Test(arguments: [
        ("2026-03-29", 150, 630, "2026-03-29T01:30:00Z", 420),  // 02:30 is skipped: 03:30 CEST
        ("2026-03-28", 1320, 360, "2026-03-28T21:00:00Z", 420),  // 22:00-06:00 over the gap
        ("2026-10-25", 150, 630, "2026-10-25T00:30:00Z", 540),  // 02:30 twice: the first (CEST)
        ("2026-10-24", 1320, 360, "2026-10-24T20:00:00Z", 540),  // 22:00-06:00 over the repeat
        ("2026-06-06", 1320, 360, "2026-06-06T20:00:00Z", 480),  // no change
    ])
    func aShiftOverAClockChangeExpectsTheTimeThatPasses(
        date: String, start: Int, end: Int, scheduledStart: String, expected: Int
    ) throws {
        let day = try #require(LocalDate(date))
        let schedule = WorkSchedule(
            id: "night", name: "Night",
            shifts: [day.weekday: ScheduledShift(startMinute: start, endMinute: end, expectedMinutes: 480)])
        let site = TimesheetSite(id: TimesheetFixtures.site, timeZone: Self.berlin, defaultScheduleId: schedule.id)
        let sheet = Timesheet.compute(
            TimesheetInput(
                from: day, through: day, now: TimesheetFixtures.later, sites: [site.id: site],
                schedules: [schedule.id: schedule], assignments: [], leave: [],
                sessions: [
                    TimesheetFixtures.session("s", in: Self.berlin, from: date + " 12:00", to: date + " 12:30")
                ]))
        let row = try #require(sheet.days.first { $0.date == day })
        #expect(row.scheduledStart == (try RFC3339.parse(scheduledStart)))
        #expect(row.expectedMinutes == expected)
    }
}
