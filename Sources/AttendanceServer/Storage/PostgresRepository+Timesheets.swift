import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository: TimesheetRepository {
    static let timesheetStatements = [
        """
        CREATE TABLE timesheet_settings (kind TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT, site_id TEXT, date TEXT,
            body TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (kind, id))
        """,
        "CREATE INDEX timesheet_settings_by_date ON timesheet_settings (kind, date)",
        "CREATE INDEX sessions_by_time ON sessions (check_in_at, session_key)",
    ]

    typealias SettingRow = (String, String, String?, String?, String?, String, Double)

    public func putTimesheetSetting(_ row: TimesheetSettingRow, audit: LedgerEvent) async throws {
        let body = String(decoding: row.body, as: UTF8.self)
        _ = try await audited(audit) { connection in
            try await connection.query(
                """
                INSERT INTO timesheet_settings (kind, id, user_id, site_id, date, body, updated_at)
                VALUES (\(row.kind.rawValue), \(row.id), \(row.userId?.rawValue), \(row.siteId?.rawValue),
                        \(row.date?.description), \(body), \(row.updatedAt.timeIntervalSince1970))
                ON CONFLICT (kind, id) DO UPDATE SET user_id = EXCLUDED.user_id, site_id = EXCLUDED.site_id,
                    date = EXCLUDED.date, body = EXCLUDED.body, updated_at = EXCLUDED.updated_at
                """, logger: self.logger)
            return true
        }
    }

    public func deleteTimesheetSetting(
        kind: TimesheetSettingRow.Kind, id: String, audit: LedgerEvent
    ) async throws -> Bool {
        try await audited(audit) { connection in
            let rows = try await connection.query(
                "DELETE FROM timesheet_settings WHERE kind = \(kind.rawValue) AND id = \(id) RETURNING id",
                logger: self.logger)
            return try await rows.collect().count > 0
        }
    }

    public func timesheetSetting(kind: TimesheetSettingRow.Kind, id: String) async throws -> TimesheetSettingRow? {
        try await settings(
            """
            SELECT \(unescaped: Self.settingColumns) FROM timesheet_settings
            WHERE kind = \(kind.rawValue) AND id = \(id)
            """
        ).first
    }

    public func timesheetSettings(
        kind: TimesheetSettingRow.Kind, dates: ClosedRange<LocalDate>?
    ) async throws
        -> [TimesheetSettingRow]
    {
        if let dates {
            return try await settings(
                """
                SELECT \(unescaped: Self.settingColumns) FROM timesheet_settings
                WHERE kind = \(kind.rawValue) AND date BETWEEN \(dates.lowerBound.description)
                    AND \(dates.upperBound.description)
                ORDER BY id
                """)
        }
        return try await settings(
            "SELECT \(unescaped: Self.settingColumns) FROM timesheet_settings WHERE kind = \(kind.rawValue) ORDER BY id"
        )
    }

    public func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws
        -> [SessionRecord]
    {
        guard !users.isEmpty else { return [] }
        var bindings = PostgresBindings()
        bindings.append(users.map(\.rawValue))
        bindings.append(window.upperBound.timeIntervalSince1970)
        bindings.append(window.lowerBound.timeIntervalSince1970)
        var sql = """
            SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ANY($1) AND check_in_at < $2
                AND (check_out_at IS NULL OR check_out_at >= $3)
            """
        if let siteId {
            bindings.append(siteId.rawValue)
            sql += " AND site_id = $4"
        }
        return try await sessions(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    public func pendingRequestTargets() async throws -> [PendingRequestTarget] {
        let rows = try await client.query(
            """
            SELECT user_id, session_key, site_id, check_in_at FROM correction_requests
            WHERE state = 'pending' ORDER BY created_at, id
            """, logger: logger)
        var found: [PendingRequestTarget] = []
        for try await (user, key, site, checkIn) in rows.decode((String, String?, String?, Double?).self) {
            found.append(
                PendingRequestTarget(
                    userId: UserID(user), sessionKey: key.map { SessionKey($0) }, siteId: site.map { SiteID($0) },
                    checkInAt: checkIn.map(Date.init(timeIntervalSince1970:))))
        }
        return found
    }

    private static let settingColumns = "kind, id, user_id, site_id, date, body, updated_at"

    private func settings(_ query: PostgresQuery) async throws -> [TimesheetSettingRow] {
        var found: [TimesheetSettingRow] = []
        for try await (kind, id, user, site, date, body, updated) in try await client.query(query, logger: logger)
            .decode(SettingRow.self)
        {
            found.append(
                TimesheetSettingRow(
                    kind: try StoredValue.decode(
                        kind, as: TimesheetSettingRow.Kind.self, table: "timesheet_settings", row: id, column: "kind"),
                    id: id,
                    userId: user.map { UserID($0) },
                    siteId: site.map { SiteID($0) }, date: date.flatMap(LocalDate.init), body: Data(body.utf8),
                    updatedAt: Date(timeIntervalSince1970: updated)))
        }
        return found
    }
}
