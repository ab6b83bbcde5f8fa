import AttendanceModels
import Foundation

/// What one employee's timesheet is computed from.
public struct EmployeeTimesheetInput: Sendable {
    public var userId: UserID
    /// Their sessions that may touch the range (voided ones are skipped).
    public var sessions: [SessionRecord]
    public var assignments: [ScheduleAssignment]
    public var leave: [LeaveDay]
    /// They have a device that is not revoked (events may still be on it).
    public var hasDevice: Bool
    /// The last time any of their devices was heard from.
    public var lastHeard: Date?
    public var pendingRequestSessions: Set<SessionKey>
    public var pendingAdditions: [TimesheetInput.PendingAddition]

    public init(
        userId: UserID, sessions: [SessionRecord] = [], assignments: [ScheduleAssignment] = [],
        leave: [LeaveDay] = [], hasDevice: Bool = false, lastHeard: Date? = nil,
        pendingRequestSessions: Set<SessionKey> = [], pendingAdditions: [TimesheetInput.PendingAddition] = []
    ) {
        self.userId = userId
        self.sessions = sessions
        self.assignments = assignments
        self.leave = leave
        self.hasDevice = hasDevice
        self.lastHeard = lastHeard
        self.pendingRequestSessions = pendingRequestSessions
        self.pendingAdditions = pendingAdditions
    }
}

/// The timesheet rules (docs/TIMESHEETS.md) over a range, one employee at a time: the sites'
/// calendars are built once, and an export never holds more than one employee's rows.
public struct TimesheetCalculator: Sendable {
    public let from: LocalDate
    public let through: LocalDate
    public let now: Date
    /// Weeks are summed whole, so rows are computed for the whole weeks around the range.
    package let first: LocalDate
    package let last: LocalDate
    package let sites: [SiteID: TimesheetSite]
    package let schedules: [ScheduleID: WorkSchedule]
    package let calendars: [SiteID: SiteCalendar]

    public init(
        from: LocalDate, through: LocalDate, now: Date, sites: [SiteID: TimesheetSite],
        schedules: [ScheduleID: WorkSchedule]
    ) {
        self.from = from
        self.through = through
        self.now = now
        self.first = from.weekStart
        self.last = through.weekStart.adding(days: 6)
        self.sites = sites
        self.schedules = schedules
        self.calendars = sites.mapValues { [first, last] site in
            SiteCalendar(timeZone: site.timeZone, from: first, through: last)
        }
    }

    package struct RowKey: Hashable {
        package var siteId: SiteID
        package var date: LocalDate
    }

    /// A session's time on one local day.
    package struct Piece {
        package var start: Date
        package var end: Date
        /// The session's place in the employee's `sessions` (a position, not a copy: a month of
        /// 10,000 people has 310,000 pieces).
        package var session: Int
        /// The part of it this row counts: all of it, unless the person's time there was counted
        /// already in another piece (`countOnce`); nil when all of it was.
        package var counted: (start: Date, end: Date)?

        package init(start: Date, end: Date, session: Int) {
            self.start = start
            self.end = end
            self.session = session
            self.counted = (start, end)
        }
    }

    /// The employee's rows within the range (by date, then site) and their weeks that touch it.
    public func employee(_ input: EmployeeTimesheetInput) -> (days: [TimesheetDay], weeks: [TimesheetWeek]) {
        finish(userId: input.userId, wholeWeeks(input))
    }

    /// The range's rows and weeks from the rows of its whole weeks (which a locked pay period may
    /// have replaced in part).
    package func finish(userId: UserID, _ days: [TimesheetDay]) -> (days: [TimesheetDay], weeks: [TimesheetWeek]) {
        (days.filter { from <= $0.date && $0.date <= through }, weeks(of: userId, days))
    }

    /// The employee's rows of every whole week that touches the range, by date then site.
    package func wholeWeeks(_ input: EmployeeTimesheetInput) -> [TimesheetDay] {
        var pieces: [RowKey: [Piece]] = [:]
        for (index, session) in input.sessions.enumerated() where session.voidedAt == nil {
            let site = site(session.siteId)
            for (date, start, end) in Self.split(session, by: site.policy.dayBoundary, calendar: calendar(site.id))
            where first <= date && date <= last {
                pieces[RowKey(siteId: session.siteId, date: date), default: []].append(
                    Piece(start: start, end: end, session: index))
            }
        }
        Self.countOnce(&pieces, of: input.sessions)
        var keys = Set(pieces.keys)
        for assignment in input.assignments {
            for date in max(first, assignment.from).through(min(last, assignment.through ?? last)) {
                keys.insert(RowKey(siteId: assignment.siteId, date: date))
            }
        }
        var leave: [RowKey: LeaveDay] = [:]
        for day in input.leave where first <= day.date && day.date <= last {
            let key = RowKey(siteId: day.siteId, date: day.date)
            leave[key] = day
            keys.insert(key)
        }
        let pendingDays = Set(
            input.pendingAdditions.map { RowKey(siteId: $0.siteId, date: calendar($0.siteId).date(of: $0.checkInAt)) })

        var days: [TimesheetDay] = []
        days.reserveCapacity(keys.count)
        for key in keys {
            let context = DayContext(
                key: Timesheet.RowKey(userId: input.userId, siteId: key.siteId, date: key.date),
                site: site(key.siteId), calendar: calendar(key.siteId),
                schedule: schedule(for: key, assignments: input.assignments), leave: leave[key],
                pendingAddition: pendingDays.contains(key), now: now, employee: input)
            if let day = context.row(pieces: pieces[key] ?? []) { days.append(day) }
        }
        days.sort { ($0.date, $0.siteId.rawValue) < ($1.date, $1.siteId.rawValue) }
        return days
    }

    /// Each moment of a person's time counts once. Where their sessions overlap (detected at two
    /// sites at once, two phones, a session added by hand over one a phone made), the session that
    /// began first keeps the shared time and a later one counts only what runs past it; a piece
    /// wholly inside earlier sessions counts nothing (its session still shows on its row).
    ///
    /// The pieces are swept in the order their sessions began (then their own starts): every
    /// session before a piece began no later than it, so what they counted reaches, without a gap,
    /// from the piece's start to the latest end among them.
    package static func countOnce(_ pieces: inout [RowKey: [Piece]], of sessions: [SessionRecord]) {
        var order: [(checkIn: Date, start: Date, end: Date, key: RowKey, index: Int)] = []
        order.reserveCapacity(pieces.values.reduce(0) { $0 + $1.count })
        for (key, list) in pieces {
            for index in list.indices {
                let piece = list[index]
                order.append((sessions[piece.session].checkInAt, piece.start, piece.end, key, index))
            }
        }
        guard order.count > 1 else { return }
        order.sort { left, right in
            if left.checkIn != right.checkIn { return left.checkIn < right.checkIn }
            if left.start != right.start { return left.start < right.start }
            // Ties always break the same way: by session key, then site.
            let a = sessions[pieces[left.key]![left.index].session]
            let b = sessions[pieces[right.key]![right.index].session]
            return (a.sessionKey.rawValue, a.siteId.rawValue) < (b.sessionKey.rawValue, b.siteId.rawValue)
        }
        // Only a piece that starts before the time already counted is touched (no copy of the rest).
        var countedUntil = Date.distantPast
        for entry in order {
            if entry.start < countedUntil {
                pieces[entry.key]![entry.index].counted =
                    entry.end > countedUntil ? (countedUntil, entry.end) : nil
            }
            countedUntil = max(countedUntil, entry.end)
        }
    }

    private func site(_ id: SiteID) -> TimesheetSite {
        // A session's site is always known; UTC and the default rules if it ever is not.
        sites[id] ?? TimesheetSite(id: id, timeZone: TimeZone(identifier: "UTC")!)
    }

    private func calendar(_ id: SiteID) -> SiteCalendar {
        calendars[id] ?? SiteCalendar(timeZone: site(id).timeZone, from: first, through: last)
    }

    /// The local days a session's time falls on, by the site's day rule. An open session runs to
    /// its last evidence; a session with no length still has its day.
    package static func split(
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
    private func schedule(for key: RowKey, assignments: [ScheduleAssignment]) -> WorkSchedule? {
        let covering = assignments.filter { $0.covers(key.date) }
        if let here = covering.first(where: { $0.siteId == key.siteId }) { return schedules[here.scheduleId] }
        if !covering.isEmpty { return nil }
        return sites[key.siteId]?.defaultScheduleId.flatMap { schedules[$0] }
    }

    /// The employee's weeks: the sums of the rows of each whole week that touches the range.
    private func weeks(of userId: UserID, _ days: [TimesheetDay]) -> [TimesheetWeek] {
        var weeks: [LocalDate: TimesheetWeek] = [:]
        for day in days {
            let start = day.date.weekStart
            var week =
                weeks[start]
                ?? TimesheetWeek(
                    userId: userId, weekStart: start, workedMinutes: 0, expectedMinutes: nil, eligibleMinutes: 0,
                    overtimeMinutes: nil)
            week.workedMinutes += day.workedMinutes
            week.eligibleMinutes += day.eligibleMinutes
            if let expected = day.expectedMinutes { week.expectedMinutes = (week.expectedMinutes ?? 0) + expected }
            weeks[start] = week
        }
        return weeks.values.map { week in
            var week = week
            week.overtimeMinutes = week.expectedMinutes.map { max(0, week.eligibleMinutes - $0) }
            return week
        }
        .sorted { $0.weekStart < $1.weekStart }
    }
}
