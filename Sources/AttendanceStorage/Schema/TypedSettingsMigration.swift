import Foundation

/// "2026-11-27 typed timesheet settings": the one generic `timesheet_settings` table (a JSON body
/// per row) becomes a table per kind with typed columns, and its rows move there. Frozen: it
/// carries its own SQL and reads the bodies as they were written until this migration.
enum TypedSettingsMigration {
    static func run(_ tx: any SQLTransaction) async throws {
        let sql = Dialect(tx.dialect)
        for statement in sql.tables + sql.moves { try await tx.execute("\(raw: statement)") }
        try await checkEveryRowMoved(tx)
        try await tx.execute("DROP TABLE timesheet_settings")
    }

    /// Every old row has its new one: a kind this migration does not know stops it, naming the kind.
    private static func checkEveryRowMoved(_ tx: any SQLTransaction) async throws {
        let tables = [
            "schedule": "work_schedules", "assignment": "schedule_assignments", "siteRules": "site_rules",
            "holiday": "holidays", "leave": "leave_days", "payCycle": "pay_cycles",
        ]
        let counts = try await tx.query("SELECT kind, COUNT(*) FROM timesheet_settings GROUP BY kind ORDER BY kind")
        for row in counts {
            let kind: String = try row[0]
            let count: Int = try row[1]
            guard let table = tables[kind] else {
                throw RepositoryError(
                    kind: .conflict,
                    detail: "timesheet_settings holds \(count) rows of kind '\(kind.prefix(40))', which no table takes")
            }
            let moved = try await tx.value("SELECT COUNT(*) FROM \(raw: table)", as: Int.self)
            guard moved == count else {
                throw RepositoryError(
                    kind: .conflict, detail: "\(count) \(kind) rows in timesheet_settings but \(moved) in \(table)")
            }
        }
    }

    /// The SQL of each database: its type of a time and how it reads a JSON body.
    private struct Dialect {
        let real: String
        let field: (_ json: String, _ key: String) -> String
        /// `FROM timesheet_settings s` joined with the elements `j` of the array `key`, with their
        /// index as `position` from 0.
        let elements: (_ key: String) -> String
        let position: String

        init(_ dialect: SQLDialect) {
            switch dialect {
            case .sqlite:
                real = "REAL"
                field = { json, key in "json_extract(\(json), '$.\(key)')" }
                elements = { key in "timesheet_settings s CROSS JOIN json_each(s.body, '$.\(key)') AS j" }
                position = "j.key"
            case .postgresql:
                real = "DOUBLE PRECISION"
                field = { json, key in "(\(json)::jsonb ->> '\(key)')" }
                elements = { key in
                    "timesheet_settings s CROSS JOIN jsonb_array_elements(s.body::jsonb -> '\(key)') "
                        + "WITH ORDINALITY AS j(value, position)"
                }
                position = "j.position - 1"
            }
        }

        func integer(_ json: String, _ key: String) -> String { "CAST(\(field(json, key)) AS INTEGER)" }

        /// Minutes after midnight of an `HH:MM` text.
        func minutes(_ json: String, _ key: String) -> String {
            let text = field(json, key)
            return "CAST(substr(\(text), 1, 2) AS INTEGER) * 60 + CAST(substr(\(text), 4, 2) AS INTEGER)"
        }

        func weekday(_ json: String) -> String {
            let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            let cases = names.enumerated().map { "WHEN '\($1)' THEN \($0 + 1)" }.joined(separator: " ")
            return "CASE \(field(json, "weekday")) \(cases) END"
        }

        var tables: [String] {
            [
                "CREATE TABLE work_schedules (id TEXT PRIMARY KEY, name TEXT NOT NULL, updated_at \(real) NOT NULL)",
                """
                CREATE TABLE schedule_shifts (
                    schedule_id TEXT NOT NULL REFERENCES work_schedules (id),
                    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 1 AND 7),
                    start_minute INTEGER NOT NULL CHECK (start_minute BETWEEN 0 AND 1439),
                    end_minute INTEGER NOT NULL CHECK (end_minute BETWEEN 0 AND 1439),
                    expected_minutes INTEGER NOT NULL CHECK (expected_minutes BETWEEN 0 AND 1440),
                    PRIMARY KEY (schedule_id, weekday))
                """,
                """
                CREATE TABLE schedule_assignments (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, site_id TEXT NOT NULL, schedule_id TEXT NOT NULL,
                    from_date TEXT NOT NULL, through_date TEXT, updated_at \(real) NOT NULL)
                """,
                "CREATE INDEX schedule_assignments_by_user ON schedule_assignments (user_id)",
                """
                CREATE TABLE site_rules (
                    site_id TEXT PRIMARY KEY, day_boundary TEXT NOT NULL,
                    late_grace_minutes INTEGER NOT NULL, early_grace_minutes INTEGER NOT NULL,
                    half_day_below_minutes INTEGER, absent_below_minutes INTEGER,
                    break_minimum_minutes INTEGER NOT NULL, overtime_counts_early_arrival BOOLEAN NOT NULL,
                    default_schedule_id TEXT, updated_at \(real) NOT NULL)
                """,
                """
                CREATE TABLE site_break_rules (
                    site_id TEXT NOT NULL REFERENCES site_rules (site_id), position INTEGER NOT NULL,
                    worked_over_minutes INTEGER NOT NULL, break_minutes INTEGER NOT NULL,
                    PRIMARY KEY (site_id, position))
                """,
                """
                CREATE TABLE holidays (
                    site_id TEXT NOT NULL, date TEXT NOT NULL, name TEXT NOT NULL, updated_at \(real) NOT NULL,
                    PRIMARY KEY (site_id, date))
                """,
                "CREATE INDEX holidays_by_date ON holidays (date)",
                """
                CREATE TABLE leave_days (
                    user_id TEXT NOT NULL, date TEXT NOT NULL, site_id TEXT NOT NULL, type TEXT NOT NULL, note TEXT,
                    updated_at \(real) NOT NULL, PRIMARY KEY (user_id, date))
                """,
                "CREATE INDEX leave_days_by_date ON leave_days (date)",
                """
                CREATE TABLE pay_cycles (
                    effective_from TEXT PRIMARY KEY, cycle TEXT NOT NULL, anchor TEXT NOT NULL,
                    updated_at \(real) NOT NULL)
                """,
            ]
        }

        var moves: [String] {
            [
                """
                INSERT INTO work_schedules (id, name, updated_at)
                SELECT id, \(field("body", "name")), updated_at FROM timesheet_settings WHERE kind = 'schedule'
                """,
                """
                INSERT INTO schedule_shifts (schedule_id, weekday, start_minute, end_minute, expected_minutes)
                SELECT s.id, \(weekday("j.value")), \(minutes("j.value", "start")), \(minutes("j.value", "end")),
                    \(integer("j.value", "expectedMinutes"))
                FROM \(elements("shifts")) WHERE s.kind = 'schedule'
                """,
                """
                INSERT INTO schedule_assignments (
                    id, user_id, site_id, schedule_id, from_date, through_date, updated_at)
                SELECT id, \(field("body", "userId")), \(field("body", "siteId")), \(field("body", "scheduleId")),
                    \(field("body", "from")), \(field("body", "through")), updated_at
                FROM timesheet_settings WHERE kind = 'assignment'
                """,
                """
                INSERT INTO site_rules (
                    site_id, day_boundary, late_grace_minutes, early_grace_minutes, half_day_below_minutes,
                    absent_below_minutes, break_minimum_minutes, overtime_counts_early_arrival, default_schedule_id,
                    updated_at)
                SELECT id, \(field("body", "dayBoundary")), \(integer("body", "lateGraceMinutes")),
                    \(integer("body", "earlyGraceMinutes")), \(integer("body", "halfDayBelowMinutes")),
                    \(integer("body", "absentBelowMinutes")), \(integer("body", "breakMinimumMinutes")),
                    CAST(\(field("body", "overtimeCountsEarlyArrival")) AS BOOLEAN),
                    \(field("body", "defaultScheduleId")), updated_at
                FROM timesheet_settings WHERE kind = 'siteRules'
                """,
                """
                INSERT INTO site_break_rules (site_id, position, worked_over_minutes, break_minutes)
                SELECT s.id, \(position), \(integer("j.value", "workedOverMinutes")),
                    \(integer("j.value", "breakMinutes"))
                FROM \(elements("breakRules")) WHERE s.kind = 'siteRules'
                """,
                """
                INSERT INTO holidays (site_id, date, name, updated_at)
                SELECT site_id, date, \(field("body", "name")), updated_at FROM timesheet_settings
                WHERE kind = 'holiday'
                """,
                """
                INSERT INTO leave_days (user_id, date, site_id, type, note, updated_at)
                SELECT user_id, date, site_id, \(field("body", "type")), \(field("body", "note")), updated_at
                FROM timesheet_settings WHERE kind = 'leave'
                """,
                """
                INSERT INTO pay_cycles (effective_from, cycle, anchor, updated_at)
                SELECT date, \(field("body", "cycle")), \(field("body", "anchor")), updated_at
                FROM timesheet_settings WHERE kind = 'payCycle'
                """,
            ]
        }
    }
}
