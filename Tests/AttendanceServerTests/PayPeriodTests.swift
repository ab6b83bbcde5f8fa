import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// Pay cycles, the period state machine (one test per transition) and what a lock keeps. No database.
@Suite struct PayPeriodTests {
    static func date(_ text: String) -> LocalDate { LocalDate(text)! }

    static func periods(_ settings: [PayCycleSetting], _ from: String, _ to: String) -> [String] {
        PayCalendar.periods(settings, from: date(from), through: date(to)).map { "\($0.start)..\($0.end)" }
    }

    @Test func cyclesCutTheCalendarAsPayrollDoes() {
        let start = Self.date("2026-01-05")
        #expect(
            Self.periods(
                [PayCycleSetting(cycle: .weekly, anchor: start, effectiveFrom: start)], "2026-01-01", "2026-01-20")
                == ["2026-01-05..2026-01-11", "2026-01-12..2026-01-18", "2026-01-19..2026-01-25"])
        #expect(
            Self.periods(
                [PayCycleSetting(cycle: .biweekly, anchor: Self.date("2025-12-22"), effectiveFrom: start)],
                "2026-01-05",
                "2026-01-31") == ["2026-01-05..2026-01-18", "2026-01-19..2026-02-01"])
        #expect(
            Self.periods(
                [PayCycleSetting(cycle: .semimonthly, anchor: start, effectiveFrom: Self.date("2028-02-01"))],
                "2028-02-01",
                "2028-03-01") == ["2028-02-01..2028-02-15", "2028-02-16..2028-02-29", "2028-03-01..2028-03-15"])
        #expect(
            Self.periods(
                [PayCycleSetting(cycle: .monthly, anchor: start, effectiveFrom: Self.date("2026-01-01"))], "2026-02-10",
                "2026-03-01") == ["2026-02-01..2026-02-28", "2026-03-01..2026-03-31"])
        #expect(Self.periods([], "2026-01-01", "2026-12-31").isEmpty, "no cycle, no periods")
    }

    @Test func aNewCycleStartsOnItsDateAndCutsTheRunningPeriodShort() {
        let settings = [
            PayCycleSetting(cycle: .monthly, anchor: Self.date("2026-01-01"), effectiveFrom: Self.date("2026-01-01")),
            PayCycleSetting(cycle: .weekly, anchor: Self.date("2026-03-16"), effectiveFrom: Self.date("2026-03-16")),
        ]
        #expect(
            Self.periods(settings, "2026-02-01", "2026-03-29") == [
                "2026-02-01..2026-02-28", "2026-03-01..2026-03-15", "2026-03-16..2026-03-22", "2026-03-23..2026-03-29",
            ])
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        var from: PayPeriodMachine.State
        var event: PayPeriodMachine.Event
        var action: PayPeriodMachine.Action
        var to: PayPeriodMachine.State
        var testDescription: String { "\(from) + \(event)" }
    }

    static let transitions: [Transition] =
        [
            Transition(from: .open, event: .approve, action: .store(.approved), to: .approved),
            Transition(from: .approved, event: .unapprove, action: .store(.open), to: .open),
            Transition(from: .approved, event: .lock, action: .lockWithSnapshot, to: .locked),
            Transition(
                from: .locked, event: .reopen(reason: "payroll missed a night"),
                action: .reopenDiscardingSnapshot(reason: "payroll missed a night"), to: .open),
            Transition(
                from: .open, event: .lock, action: .refuse("the period is open; approve it before locking it"),
                to: .open),
            Transition(from: .open, event: .unapprove, action: .refuse("the period is already open"), to: .open),
            Transition(
                from: .open, event: .reopen(reason: "x"), action: .refuse("the period is already open"), to: .open),
            Transition(
                from: .approved, event: .approve, action: .refuse("the period is already approved"), to: .approved),
            Transition(
                from: .approved, event: .reopen(reason: "x"),
                action: .refuse("the period is approved, not locked; unapprove it instead"), to: .approved),
        ]
        + [PayPeriodMachine.Event.approve, .unapprove, .lock].map {
            Transition(
                from: .locked, event: $0,
                action: .refuse("the period is locked; reopening it (with a reason) is the only change allowed"),
                to: .locked)
        }

    @Test(arguments: transitions) func eachTransition(_ transition: Transition) {
        var machine = PayPeriodMachine(state: transition.from)
        #expect(machine.handle(transition.event) == transition.action)
        #expect(machine.state == transition.to)
    }

    static func day(_ date: String, worked: Int) -> TimesheetDay {
        TimesheetDay(
            userId: "u", siteId: "s", date: Self.date(date), timeZone: "Europe/Berlin", utcOffsetSeconds: [7200],
            workedMinutes: worked, measuredBreakMinutes: 0, deductedBreakMinutes: 0, eligibleMinutes: worked,
            lateMinutes: 0, earlyMinutes: 0, sessionCount: 1, status: .present, flags: [])
    }

    @Test func aLockedPeriodShowsItsLockedRowsAndTheDifferencesAreExceptions() {
        let june = PayPeriodRecord(
            dates: PayPeriodDates(start: Self.date("2026-06-01"), end: Self.date("2026-06-30")), state: .locked)
        let live = [
            Self.day("2026-06-29", worked: 480), Self.day("2026-06-30", worked: 120),
            Self.day("2026-07-01", worked: 360),
        ]
        let locked = [Self.day("2026-06-29", worked: 480)]
        let merged = PayPeriodLock.merge(live: live, locked: locked, periods: [june])
        #expect(merged.map(\.date.description) == ["2026-06-29", "2026-07-01"], "June as locked, July live")
        let exceptions = PayPeriodLock.exceptions(locked: locked, live: live.filter { june.dates.contains($0.date) })
        #expect(exceptions.map(\.date.description) == ["2026-06-30"])
        #expect(exceptions.first?.changed == ["row"])
        var later = Self.day("2026-06-29", worked: 480)
        later.flags = [.provisional]
        #expect(PayPeriodLock.exceptions(locked: locked, live: [later]).isEmpty, "a flag alone is no exception")
        later.workedMinutes = 500
        #expect(PayPeriodLock.exceptions(locked: locked, live: [later]).first?.changed == ["workedMinutes"])
    }

    @Test func aLockedRowKeepsEverythingButTheLeaveNote() throws {
        var day = Self.day("2026-06-29", worked: 480)
        day.firstIn = Date(timeIntervalSince1970: 1_782_712_800)
        day.flags = [.corrected, .manual]
        day.expectedMinutes = 480
        day.overtimeMinutes = 0
        day.leaveNote = "a note"
        var kept = day
        kept.leaveNote = nil
        #expect(TimesheetDayCodec.decode(TimesheetDayCodec.encode(day)) == kept, "all but the leave note")
    }
}
