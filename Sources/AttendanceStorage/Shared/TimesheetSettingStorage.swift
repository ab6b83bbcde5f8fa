import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func putTimesheetSetting(_ setting: TimesheetSetting, updatedAt: Date, audit: LedgerEvent) async throws {
        try await database.write { tx in
            try await TimesheetSettingRows.put(tx, setting, updatedAt: updatedAt)
            try await tx.appendLedger(audit)
        }
    }

    public func deleteTimesheetSetting(_ key: TimesheetSettingKey, audit: LedgerEvent) async throws -> Bool {
        try await database.write { tx in
            try await tx.audited(try await TimesheetSettingRows.delete(tx, key) > 0, audit)
        }
    }

    public func timesheetSetting(_ key: TimesheetSettingKey) async throws -> TimesheetSetting? {
        try await database.read { tx in try await TimesheetSettingRows.setting(tx, key) }
    }

    public func schedules() async throws -> [WorkSchedule] {
        try await database.read { tx in try await TimesheetSettingRows.schedules(tx, "ORDER BY id") }
    }

    public func assignments(userId: UserID?) async throws -> [ScheduleAssignment] {
        let user: SQL = userId.map { "WHERE user_id = \($0) " } ?? ""
        return try await database.read { tx in try await TimesheetSettingRows.assignments(tx, "\(user)ORDER BY id") }
    }

    public func siteRules() async throws -> [SiteID: SiteRules] {
        try await database.read { tx in
            Dictionary(try await TimesheetSettingRows.rules(tx, ""), uniquingKeysWith: { first, _ in first })
        }
    }

    public func holidays(siteId: SiteID?, dates: ClosedRange<LocalDate>?) async throws -> [Holiday] {
        let condition = TimesheetSettingRows.condition(
            "site_id", siteId?.rawValue, dates: dates, order: "ORDER BY site_id, date")
        return try await database.read { tx in try await TimesheetSettingRows.holidays(tx, condition) }
    }

    public func leaveDays(userId: UserID?, dates: ClosedRange<LocalDate>?) async throws -> [LeaveDay] {
        let condition = TimesheetSettingRows.condition(
            "user_id", userId?.rawValue, dates: dates, order: "ORDER BY user_id, date")
        return try await database.read { tx in try await TimesheetSettingRows.leave(tx, condition) }
    }

    public func payCycles() async throws -> [PayCycleSetting] {
        try await database.read { tx in try await TimesheetSettingRows.cycles(tx, "ORDER BY effective_from") }
    }
}

/// Each kind of setting in its own table: how it is written, removed and read back (strictly: a
/// value this release does not know is an error naming the row, never a default).
package enum TimesheetSettingRows {
    static func put(_ tx: any SQLTransaction, _ setting: TimesheetSetting, updatedAt: Date) async throws {
        switch setting {
        case .schedule(let schedule):
            try await tx.execute(
                """
                INSERT INTO work_schedules (id, name, updated_at)
                VALUES (\(schedule.id), \(schedule.name), \(updatedAt))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
                """)
            try await tx.execute("DELETE FROM schedule_shifts WHERE schedule_id = \(schedule.id)")
            for (day, shift) in schedule.shifts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                try await tx.execute(
                    """
                    INSERT INTO schedule_shifts (schedule_id, weekday, start_minute, end_minute, expected_minutes)
                    VALUES (\(schedule.id), \(day.rawValue), \(shift.startMinute), \(shift.endMinute),
                            \(shift.expectedMinutes))
                    """)
            }
        case .assignment(let assignment):
            try await tx.execute(
                """
                INSERT INTO schedule_assignments (
                    id, user_id, site_id, schedule_id, from_date, through_date, updated_at)
                VALUES (\(assignment.id), \(assignment.userId), \(assignment.siteId), \(assignment.scheduleId),
                        \(assignment.from.description), \(assignment.through?.description), \(updatedAt))
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, site_id = excluded.site_id,
                    schedule_id = excluded.schedule_id, from_date = excluded.from_date,
                    through_date = excluded.through_date, updated_at = excluded.updated_at
                """)
        case .siteRules(let siteId, let rules):
            try await putRules(tx, siteId, rules, updatedAt: updatedAt)
        case .holiday(let holiday):
            try await tx.execute(
                """
                INSERT INTO holidays (site_id, date, name, updated_at)
                VALUES (\(holiday.siteId), \(holiday.date.description), \(holiday.name), \(updatedAt))
                ON CONFLICT (site_id, date) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
                """)
        case .leave(let leave):
            try await tx.execute(
                """
                INSERT INTO leave_days (user_id, date, site_id, type, note, updated_at)
                VALUES (\(leave.userId), \(leave.date.description), \(leave.siteId), \(leave.type), \(leave.note),
                        \(updatedAt))
                ON CONFLICT (user_id, date) DO UPDATE SET site_id = excluded.site_id, type = excluded.type,
                    note = excluded.note, updated_at = excluded.updated_at
                """)
        case .payCycle(let cycle):
            try await tx.execute(
                """
                INSERT INTO pay_cycles (effective_from, cycle, anchor, updated_at)
                VALUES (\(cycle.effectiveFrom.description), \(cycle.cycle.rawValue), \(cycle.anchor.description),
                        \(updatedAt))
                ON CONFLICT (effective_from) DO UPDATE SET cycle = excluded.cycle, anchor = excluded.anchor,
                    updated_at = excluded.updated_at
                """)
        }
    }

    private static func putRules(
        _ tx: any SQLTransaction, _ siteId: SiteID, _ rules: SiteRules, updatedAt: Date
    ) async throws {
        let policy = rules.policy
        try await tx.execute(
            """
            INSERT INTO site_rules (
                site_id, day_boundary, late_grace_minutes, early_grace_minutes, half_day_below_minutes,
                absent_below_minutes, break_minimum_minutes, overtime_counts_early_arrival, default_schedule_id,
                updated_at)
            VALUES (\(siteId), \(policy.dayBoundary.rawValue), \(policy.lateGraceMinutes), \(policy.earlyGraceMinutes),
                    \(policy.halfDayBelowMinutes), \(policy.absentBelowMinutes), \(policy.breakMinimumMinutes),
                    \(policy.overtimeCountsEarlyArrival), \(rules.defaultScheduleId), \(updatedAt))
            ON CONFLICT (site_id) DO UPDATE SET day_boundary = excluded.day_boundary,
                late_grace_minutes = excluded.late_grace_minutes, early_grace_minutes = excluded.early_grace_minutes,
                half_day_below_minutes = excluded.half_day_below_minutes,
                absent_below_minutes = excluded.absent_below_minutes,
                break_minimum_minutes = excluded.break_minimum_minutes,
                overtime_counts_early_arrival = excluded.overtime_counts_early_arrival,
                default_schedule_id = excluded.default_schedule_id, updated_at = excluded.updated_at
            """)
        try await tx.execute("DELETE FROM site_break_rules WHERE site_id = \(siteId)")
        for (position, rule) in policy.breakRules.enumerated() {
            try await tx.execute(
                """
                INSERT INTO site_break_rules (site_id, position, worked_over_minutes, break_minutes)
                VALUES (\(siteId), \(position), \(rule.workedOverMinutes), \(rule.breakMinutes))
                """)
        }
    }

    /// Removes the setting `key` names; the number of rows it had (0 or 1).
    static func delete(_ tx: any SQLTransaction, _ key: TimesheetSettingKey) async throws -> Int {
        switch key {
        case .schedule(let id):
            try await tx.execute("DELETE FROM schedule_shifts WHERE schedule_id = \(id)")
            return try await tx.execute("DELETE FROM work_schedules WHERE id = \(id)")
        case .assignment(let id):
            return try await tx.execute("DELETE FROM schedule_assignments WHERE id = \(id)")
        case .siteRules(let siteId):
            try await tx.execute("DELETE FROM site_break_rules WHERE site_id = \(siteId)")
            return try await tx.execute("DELETE FROM site_rules WHERE site_id = \(siteId)")
        case .holiday(let siteId, let date):
            return try await tx.execute(
                "DELETE FROM holidays WHERE site_id = \(siteId) AND date = \(date.description)")
        case .leave(let userId, let date):
            return try await tx.execute(
                "DELETE FROM leave_days WHERE user_id = \(userId) AND date = \(date.description)")
        case .payCycle(let from):
            return try await tx.execute("DELETE FROM pay_cycles WHERE effective_from = \(from.description)")
        }
    }

    static func setting(_ tx: any SQLTransaction, _ key: TimesheetSettingKey) async throws -> TimesheetSetting? {
        switch key {
        case .schedule(let id):
            return try await schedules(tx, "WHERE id = \(id)").first.map { .schedule($0) }
        case .assignment(let id):
            return try await assignments(tx, "WHERE id = \(id)").first.map { .assignment($0) }
        case .siteRules(let siteId):
            return try await rules(tx, "WHERE site_id = \(siteId)").first.map { .siteRules($0.0, $0.1) }
        case .holiday(let siteId, let date):
            return try await holidays(tx, "WHERE site_id = \(siteId) AND date = \(date.description)").first
                .map { .holiday($0) }
        case .leave(let userId, let date):
            return try await leave(tx, "WHERE user_id = \(userId) AND date = \(date.description)").first
                .map { .leave($0) }
        case .payCycle(let from):
            return try await cycles(tx, "WHERE effective_from = \(from.description)").first.map { .payCycle($0) }
        }
    }

    /// `WHERE` for an optional owner (`column` = `value`) and an optional range of dates.
    static func condition(_ column: String, _ value: String?, dates: ClosedRange<LocalDate>?, order: String) -> SQL {
        var parts: [SQL] = []
        if let value { parts.append("\(raw: column) = \(value)") }
        if let dates {
            parts.append("date BETWEEN \(dates.lowerBound.description) AND \(dates.upperBound.description)")
        }
        guard var condition = parts.first else { return "\(raw: order)" }
        for part in parts.dropFirst() { condition = "\(condition) AND \(part)" }
        return "WHERE \(condition) \(raw: order)"
    }

    // MARK: - Reading

    static func schedules(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [WorkSchedule] {
        let schedules = try await tx.query("SELECT id, name FROM work_schedules \(condition)").map { row in
            WorkSchedule(id: try row[0], name: try row[1], shifts: [:])
        }
        guard !schedules.isEmpty else { return [] }
        var shifts: [ScheduleID: [Weekday: ScheduledShift]] = [:]
        let rows = try await tx.query(
            """
            SELECT schedule_id, weekday, start_minute, end_minute, expected_minutes FROM schedule_shifts
            WHERE schedule_id \(anyOf: schedules.map(\.id.rawValue))
            """)
        for row in rows {
            let scheduleId: ScheduleID = try row[0]
            let number: Int = try row[1]
            guard let day = Weekday(rawValue: number) else {
                throw StoredValueError(
                    table: "schedule_shifts", row: "\(scheduleId)/\(number)", column: "weekday", value: "\(number)",
                    expected: "a weekday from 1 (Monday) to 7")
            }
            shifts[scheduleId, default: [:]][day] = ScheduledShift(
                startMinute: try row[2], endMinute: try row[3], expectedMinutes: try row[4])
        }
        return schedules.map { schedule in
            var schedule = schedule
            schedule.shifts = shifts[schedule.id] ?? [:]
            return schedule
        }
    }

    static func assignments(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [ScheduleAssignment] {
        try await tx.query(
            """
            SELECT id, user_id, site_id, schedule_id, from_date, through_date FROM schedule_assignments \(condition)
            """
        ).map { row in
            let id: AssignmentID = try row[0]
            return ScheduleAssignment(
                id: id, userId: try row[1], siteId: try row[2], scheduleId: try row[3],
                from: try date(row, 4, table: "schedule_assignments", row: id.rawValue, column: "from_date"),
                through: try (row[5] as String?).map { _ in
                    try date(row, 5, table: "schedule_assignments", row: id.rawValue, column: "through_date")
                })
        }
    }

    static func rules(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [(SiteID, SiteRules)] {
        let rows = try await tx.query(
            """
            SELECT site_id, day_boundary, late_grace_minutes, early_grace_minutes, half_day_below_minutes,
                absent_below_minutes, break_minimum_minutes, overtime_counts_early_arrival, default_schedule_id
            FROM site_rules \(condition)
            """)
        guard !rows.isEmpty else { return [] }
        var rules: [(SiteID, SiteRules)] = []
        for row in rows {
            let siteId: SiteID = try row[0]
            var policy = TimesheetPolicy()
            policy.dayBoundary = try StoredValue.decode(
                try row[1] as String, table: "site_rules", row: siteId.rawValue, column: "day_boundary")
            policy.lateGraceMinutes = try row[2]
            policy.earlyGraceMinutes = try row[3]
            policy.halfDayBelowMinutes = try row[4]
            policy.absentBelowMinutes = try row[5]
            policy.breakMinimumMinutes = try row[6]
            policy.overtimeCountsEarlyArrival = try row[7]
            rules.append((siteId, SiteRules(policy: policy, defaultScheduleId: try row[8])))
        }
        var breaks: [SiteID: [BreakRule]] = [:]
        for row in try await tx.query(
            """
            SELECT site_id, worked_over_minutes, break_minutes FROM site_break_rules
            WHERE site_id \(anyOf: rules.map(\.0.rawValue)) ORDER BY site_id, position
            """)
        {
            breaks[try row[0], default: []].append(BreakRule(workedOverMinutes: try row[1], breakMinutes: try row[2]))
        }
        return rules.map { siteId, rules in
            var rules = rules
            rules.policy.breakRules = breaks[siteId] ?? []
            return (siteId, rules)
        }
    }

    static func holidays(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [Holiday] {
        try await tx.query("SELECT site_id, date, name FROM holidays \(condition)").map { row in
            let siteId: SiteID = try row[0]
            return Holiday(
                siteId: siteId, date: try date(row, 1, table: "holidays", row: siteId.rawValue, column: "date"),
                name: try row[2])
        }
    }

    static func leave(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [LeaveDay] {
        try await tx.query("SELECT user_id, date, site_id, type, note FROM leave_days \(condition)").map { row in
            let userId: UserID = try row[0]
            return LeaveDay(
                userId: userId, siteId: try row[2],
                date: try date(row, 1, table: "leave_days", row: userId.rawValue, column: "date"),
                type: try row[3], note: try row[4])
        }
    }

    static func cycles(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [PayCycleSetting] {
        try await tx.query("SELECT effective_from, cycle, anchor FROM pay_cycles \(condition)").map { row in
            let from: String = try row[0]
            return PayCycleSetting(
                cycle: try StoredValue.decode(try row[1] as String, table: "pay_cycles", row: from, column: "cycle"),
                anchor: try date(row, 2, table: "pay_cycles", row: from, column: "anchor"),
                effectiveFrom: try date(row, 0, table: "pay_cycles", row: from, column: "effective_from"))
        }
    }

    /// A `YYYY-MM-DD` column, strictly.
    private static func date(
        _ row: SQLRow, _ index: Int, table: String, row key: String, column: String
    ) throws -> LocalDate {
        let text: String = try row[index]
        guard let date = LocalDate(text) else {
            throw StoredValueError(table: table, row: key, column: column, value: text, expected: "a date YYYY-MM-DD")
        }
        return date
    }
}
