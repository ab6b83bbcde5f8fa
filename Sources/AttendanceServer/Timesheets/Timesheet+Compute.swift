import AttendanceModels
import Foundation

/// The timesheet rules (docs/TIMESHEETS.md): pure, deterministic, one place for both backends.
extension Timesheet {
    struct RowKey: Hashable {
        var userId: UserID
        var siteId: SiteID
        var date: LocalDate
    }

    /// A session's time on one local day.
    struct Piece {
        var start: Date
        var end: Date
        var session: SessionRecord
    }

    public static func compute(_ input: TimesheetInput) -> Timesheet {
        // Weeks are summed whole, so the rows are computed for the whole weeks around the range.
        let first = input.from.weekStart
        let last = input.through.weekStart.adding(days: 6)
        var calendars: [SiteID: SiteCalendar] = [:]
        func site(_ id: SiteID) -> TimesheetSite {
            // A session's site is always known; UTC and the default rules if it ever is not.
            input.sites[id] ?? TimesheetSite(id: id, timeZone: TimeZone(identifier: "UTC")!)
        }
        func calendar(_ id: SiteID) -> SiteCalendar {
            if let known = calendars[id] { return known }
            let made = SiteCalendar(timeZone: site(id).timeZone, from: first, through: last)
            calendars[id] = made
            return made
        }

        var pieces: [RowKey: [Piece]] = [:]
        for session in input.sessions where session.voidedAt == nil {
            let calendar = calendar(session.siteId)
            for (date, start, end) in split(session, by: site(session.siteId).policy.dayBoundary, calendar: calendar)
            where first <= date && date <= last {
                let key = RowKey(userId: session.userId, siteId: session.siteId, date: date)
                pieces[key, default: []].append(Piece(start: start, end: end, session: session))
            }
        }
        var keys = Set(pieces.keys)
        for assignment in input.assignments {
            let start = max(first, assignment.from)
            let end = min(last, assignment.through ?? last)
            for date in start.through(end) {
                keys.insert(RowKey(userId: assignment.userId, siteId: assignment.siteId, date: date))
            }
        }
        var leave: [RowKey: LeaveDay] = [:]
        for day in input.leave where first <= day.date && day.date <= last {
            let key = RowKey(userId: day.userId, siteId: day.siteId, date: day.date)
            leave[key] = day
            keys.insert(key)
        }
        var pendingDays: Set<RowKey> = []
        for addition in input.pendingAdditions {
            let date = calendar(addition.siteId).date(of: addition.checkInAt)
            pendingDays.insert(RowKey(userId: addition.userId, siteId: addition.siteId, date: date))
        }
        var assignments: [UserID: [ScheduleAssignment]] = [:]
        for assignment in input.assignments { assignments[assignment.userId, default: []].append(assignment) }

        var days: [TimesheetDay] = []
        days.reserveCapacity(keys.count)
        for key in keys {
            let context = DayContext(
                key: key, site: site(key.siteId), calendar: calendar(key.siteId),
                schedule: schedule(for: key, assignments: assignments[key.userId] ?? [], input: input),
                leave: leave[key], pendingAddition: pendingDays.contains(key), input: input)
            if let day = context.row(pieces: pieces[key] ?? []) { days.append(day) }
        }
        days.sort { ($0.userId.rawValue, $0.date, $0.siteId.rawValue) < ($1.userId.rawValue, $1.date, $1.siteId.rawValue) }
        let weeks = summarize(days, from: input.from, through: input.through)
        return Timesheet(
            from: input.from, through: input.through,
            days: days.filter { input.from <= $0.date && $0.date <= input.through }, weeks: weeks)
    }

    /// The local days a session's time falls on, by the site's day rule. An open session runs to
    /// its last evidence; a session with no length still has its day.
    static func split(
        _ session: SessionRecord, by boundary: DayBoundary, calendar: SiteCalendar
    ) -> [(LocalDate, Date, Date)] {
        let start = session.checkInAt
        let end = max(start, session.checkOutAt ?? session.lastSeenAt)
        let startDate = calendar.date(of: start)
        guard boundary == .calendar else { return [(startDate, start, end)] }
        var result: [(LocalDate, Date, Date)] = []
        var date = startDate
        var pieceStart = start
        repeat {
            let dayEnd = calendar.end(of: date)
            let pieceEnd = min(end, dayEnd)
            if pieceEnd > pieceStart || result.isEmpty { result.append((date, pieceStart, pieceEnd)) }
            pieceStart = dayEnd
            date = date.adding(days: 1)
        } while pieceStart < end
        return result
    }

    /// The schedule of a row: the employee's assignment at this site, else none if they are
    /// assigned elsewhere that day, else the site's default.
    static func schedule(
        for key: RowKey, assignments: [ScheduleAssignment], input: TimesheetInput
    ) -> WorkSchedule? {
        let covering = assignments.filter { $0.covers(key.date) }
        if let here = covering.first(where: { $0.siteId == key.siteId }) { return input.schedules[here.scheduleId] }
        if !covering.isEmpty { return nil }
        return input.sites[key.siteId]?.defaultScheduleId.flatMap { input.schedules[$0] }
    }

    /// Each employee's weeks: the sums of the rows of the whole week.
    static func summarize(_ days: [TimesheetDay], from: LocalDate, through: LocalDate) -> [TimesheetWeek] {
        struct WeekKey: Hashable {
            var userId: UserID
            var weekStart: LocalDate
        }
        var weeks: [WeekKey: TimesheetWeek] = [:]
        for day in days {
            let key = WeekKey(userId: day.userId, weekStart: day.date.weekStart)
            var week =
                weeks[key]
                ?? TimesheetWeek(
                    userId: day.userId, weekStart: key.weekStart, workedMinutes: 0, expectedMinutes: nil,
                    eligibleMinutes: 0, overtimeMinutes: nil)
            week.workedMinutes += day.workedMinutes
            week.eligibleMinutes += day.eligibleMinutes
            if let expected = day.expectedMinutes { week.expectedMinutes = (week.expectedMinutes ?? 0) + expected }
            weeks[key] = week
        }
        return weeks.values
            .filter { from.weekStart <= $0.weekStart && $0.weekStart <= through.weekStart }
            .map { week in
                var week = week
                week.overtimeMinutes = week.expectedMinutes.map { max(0, week.eligibleMinutes - $0) }
                return week
            }
            .sorted { ($0.userId.rawValue, $0.weekStart) < ($1.userId.rawValue, $1.weekStart) }
    }
}

/// Whole minutes from seconds, to the nearest.
func minutes(_ seconds: Double) -> Int { Int((seconds / 60).rounded()) }
