import AttendanceModels
import Foundation

/// One row's rules: hours, breaks, the schedule's expectations and the status
/// (docs/TIMESHEETS.md, "Rows").
package struct DayContext {
    package var key: Timesheet.RowKey
    package var site: TimesheetSite
    package var calendar: SiteCalendar
    package var schedule: WorkSchedule?
    package var leave: LeaveDay?
    package var pendingAddition: Bool
    package var now: Date
    package var employee: EmployeeTimesheetInput

    private var policy: TimesheetPolicy { site.policy }
    private var holiday: String? { site.holidays[key.date] }

    /// The scheduled shift as instants, unless the day is a holiday or leave. Its wall times are
    /// read as RFC 5545 reads them (`SiteCalendar.instant`); when a clock change makes the shift
    /// longer or shorter than its wall times say, the expected minutes change by as much (a
    /// 22:00-06:00 shift expecting 480 expects 420 on the spring-forward night, 540 on the
    /// fall-back one).
    private var shift: (start: Date, end: Date, expected: Int)? {
        guard holiday == nil, leave == nil, let planned = schedule?.shifts[key.date.weekday] else { return nil }
        let start = calendar.instant(key.date, minute: planned.startMinute)
        let end = calendar.instant(key.date, minute: planned.endMinuteFromStartDay)
        let elapsed = Int((end.timeIntervalSince(start) / 60).rounded())
        let wall = planned.endMinuteFromStartDay - planned.startMinute
        return (start, end, max(0, planned.expectedMinutes + elapsed - wall))
    }

    /// The row, or nil for a scheduled day with no session whose shift has not ended yet.
    package func row(pieces: [TimesheetCalculator.Piece]) -> TimesheetDay? {
        let shift = shift
        let intervals = merged(pieces.compactMap { $0.counted.map { ($0.start, $0.end) } })
        let gross = intervals.reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        var breaks: [Double] = []
        for (previous, next) in zip(intervals, intervals.dropFirst()) {
            let gap = next.0.timeIntervalSince(previous.1)
            if gap <= TimesheetConfiguration.longestBreakSeconds { breaks.append(gap) }
        }
        let measured = breaks.reduce(0, +)
        let counted = breaks.filter { $0 >= Double(policy.breakMinimumMinutes * 60) }.reduce(0, +)
        let deducted = policy.deductedBreakSeconds(gross: gross, counted: counted)
        let worked = gross - deducted

        // The row's sessions, each once (a session split over two days has a piece on each).
        let all = pieces.map(\.session).sorted().reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
            .map { employee.sessions[$0] }
        if all.isEmpty, leave == nil, holiday == nil, let shift, shift.end > now { return nil }

        var day = TimesheetDay(
            userId: key.userId, siteId: key.siteId, date: key.date, timeZone: site.timeZone.identifier,
            utcOffsetSeconds: calendar.offsets(on: key.date), firstIn: all.map(\.checkInAt).min(),
            lastOut: all.contains { $0.checkOutAt == nil } ? nil : all.compactMap(\.checkOutAt).max(),
            proposedEnd: nil, workedMinutes: minutes(worked), measuredBreakMinutes: minutes(measured),
            deductedBreakMinutes: minutes(deducted), eligibleMinutes: minutes(worked), expectedMinutes: expected(shift),
            scheduledStart: shift?.start, scheduledEnd: shift?.end, lateMinutes: 0, earlyMinutes: 0,
            overtimeMinutes: nil, sessionCount: all.count, status: .off, flags: flags(all, pieces: pieces),
            holiday: holiday, leaveType: leave?.type, leaveNote: leave?.note)
        let unconfirmed = all.filter { $0.checkOutAt == nil && isUnconfirmed($0) }
        day.proposedEnd = unconfirmed.map(\.lastSeenAt).max()

        if let shift, !policy.overtimeCountsEarlyArrival {
            // Time before the shift's start worked in sessions that began this day (not the tail of
            // the previous night's shift, which counts on this day by the calendar rule).
            let dayStart = calendar.start(of: key.date)
            let leading = pieces.filter { employee.sessions[$0.session].checkInAt >= dayStart }
            let early = merged(leading.compactMap { $0.counted.map { ($0.start, $0.end) } })
                .reduce(0) { $0 + max(0, min($1.1, shift.start).timeIntervalSince($1.0)) }
            day.eligibleMinutes = minutes(max(0, worked - early))
        }
        day.overtimeMinutes = day.expectedMinutes.map { max(0, day.eligibleMinutes - $0) }
        day.status = status(sessions: all, shift: shift, day: &day)
        return day
    }

    private func expected(_ shift: (start: Date, end: Date, expected: Int)?) -> Int? {
        if let shift { return shift.expected }
        // A day off, a holiday or leave expects nothing under a schedule; without one, no value.
        return schedule == nil ? nil : 0
    }

    /// The status, and the late and early minutes against the shift.
    private func status(
        sessions: [SessionRecord], shift: (start: Date, end: Date, expected: Int)?, day: inout TimesheetDay
    ) -> DayStatus {
        guard !sessions.isEmpty else {
            if leave != nil { return .leave }
            return shift == nil ? .off : .absent
        }
        guard let shift else { return .present }
        // The sessions that cover the shift decide it, whichever days their hours count on. Work
        // done entirely outside the shift (a night instead of a day) is present: not late by hours.
        let deciding = sessions.filter { $0.checkInAt < shift.end && end(of: $0) > shift.start }
        guard !deciding.isEmpty else { return .present }
        if let arrival = deciding.map(\.checkInAt).min() {
            let late = arrival.timeIntervalSince(shift.start)
            day.lateMinutes = late > Double(policy.lateGraceMinutes * 60) ? minutes(late) : 0
        }
        // Until the shift has ended, a lunch check-out is not an early departure and a short day is
        // not a half day: today's row claims neither.
        let over = shift.end <= now
        if over, deciding.allSatisfy({ $0.checkOutAt != nil }), let departure = deciding.compactMap(\.checkOutAt).max()
        {
            let early = shift.end.timeIntervalSince(departure)
            day.earlyMinutes = early > Double(policy.earlyGraceMinutes * 60) ? minutes(early) : 0
        }
        let attended = merged(deciding.map { ($0.checkInAt, end(of: $0)) })
            .reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
        if over, let absent = policy.absentBelowMinutes, attended < Double(absent * 60) { return .absent }
        if over, let half = policy.halfDayBelowMinutes, attended < Double(half * 60) { return .halfDay }
        return day.lateMinutes > 0 ? .late : .present
    }

    private func flags(_ sessions: [SessionRecord], pieces: [TimesheetCalculator.Piece]) -> Set<DayFlag> {
        var flags: Set<DayFlag> = []
        if sessions.contains(where: { $0.checkOutAt == nil }) { flags.insert(.open) }
        if sessions.contains(where: { $0.checkOutAt == nil && isUnconfirmed($0) }) { flags.insert(.endUnconfirmed) }
        // By hand in the app (a session an admin added has no device: it is `corrected`).
        let byHand = sessions.contains {
            ($0.source == .manual && $0.deviceId != nil) || $0.evidence.checkOutSource == .manual
        }
        if byHand {
            flags.insert(.manual)
        }
        if sessions.contains(where: \.corrected) { flags.insert(.corrected) }
        if pendingAddition || sessions.contains(where: { employee.pendingRequestSessions.contains($0.sessionKey) }) {
            flags.insert(.pendingRequest)
        }
        if isProvisional(lastEnd: pieces.map(\.end).max()) { flags.insert(.provisional) }
        return flags
    }

    private func isUnconfirmed(_ session: SessionRecord) -> Bool {
        now.timeIntervalSince(session.lastSeenAt) > TimesheetConfiguration.endUnconfirmedAfterSeconds
    }

    /// Provisional while the employee has a device that has not been heard from since the day
    /// ended, for at most 72 h after.
    private func isProvisional(lastEnd: Date?) -> Bool {
        guard employee.hasDevice else { return false }
        let dayEnd = max(calendar.end(of: key.date), lastEnd ?? .distantPast)
        guard now < dayEnd.addingTimeInterval(TimesheetConfiguration.provisionalForSeconds) else { return false }
        return (employee.lastHeard ?? .distantPast) < dayEnd
    }

    private func end(of session: SessionRecord) -> Date {
        max(session.checkInAt, session.checkOutAt ?? session.lastSeenAt)
    }
}

/// Intervals sorted and merged where they overlap or touch.
package func merged(_ intervals: [(Date, Date)]) -> [(Date, Date)] {
    var result: [(Date, Date)] = []
    for interval in intervals.sorted(by: { $0.0 < $1.0 }) {
        if let last = result.last, interval.0 <= last.1 {
            result[result.count - 1].1 = max(last.1, interval.1)
        } else {
            result.append(interval)
        }
    }
    return result
}
