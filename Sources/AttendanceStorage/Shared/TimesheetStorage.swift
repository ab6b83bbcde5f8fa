import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func putTimesheetSetting(_ row: TimesheetSettingRow, audit: LedgerEvent) async throws {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO timesheet_settings (kind, id, user_id, site_id, date, body, updated_at)
                VALUES (\(row.kind.rawValue), \(row.id), \(row.userId), \(row.siteId), \(row.date?.description),
                        \(String(decoding: row.body, as: UTF8.self)), \(row.updatedAt))
                ON CONFLICT (kind, id) DO UPDATE SET user_id = excluded.user_id, site_id = excluded.site_id,
                    date = excluded.date, body = excluded.body, updated_at = excluded.updated_at
                """)
            try await tx.appendLedger(audit)
        }
    }

    public func deleteTimesheetSetting(
        kind: TimesheetSettingRow.Kind, id: String, audit: LedgerEvent
    ) async throws -> Bool {
        try await database.write { tx in
            let deleted = try await tx.execute(
                "DELETE FROM timesheet_settings WHERE kind = \(kind.rawValue) AND id = \(id)")
            return try await tx.audited(deleted > 0, audit)
        }
    }

    public func timesheetSetting(kind: TimesheetSettingRow.Kind, id: String) async throws -> TimesheetSettingRow? {
        try await database.read { tx in
            try await TimesheetRows.settings(tx, "WHERE kind = \(kind.rawValue) AND id = \(id)").first
        }
    }

    public func timesheetSettings(
        kind: TimesheetSettingRow.Kind, dates: ClosedRange<LocalDate>?
    ) async throws -> [TimesheetSettingRow] {
        try await database.read { tx in
            guard let dates else {
                return try await TimesheetRows.settings(tx, "WHERE kind = \(kind.rawValue) ORDER BY id")
            }
            return try await TimesheetRows.settings(
                tx,
                """
                WHERE kind = \(kind.rawValue)
                    AND date BETWEEN \(dates.lowerBound.description) AND \(dates.upperBound.description)
                ORDER BY id
                """)
        }
    }

    public func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws -> [SessionRecord] {
        guard !users.isEmpty else { return [] }
        let site: SQL = siteId.map { " AND site_id = \($0)" } ?? ""
        return try await database.read { tx in
            try await SessionRows.sessions(
                tx,
                """
                SELECT \(raw: SessionRows.columns) FROM sessions WHERE user_id \(anyOf: users.map(\.rawValue))
                    AND check_in_at < \(window.upperBound)
                    AND (check_out_at IS NULL OR check_out_at >= \(window.lowerBound))\(site)
                """)
        }
    }

    public func pendingRequestTargets() async throws -> [PendingRequestTarget] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT user_id, session_key, site_id, check_in_at FROM correction_requests
                WHERE state = 'pending' ORDER BY created_at, id
                """
            ).map { row in
                PendingRequestTarget(
                    userId: try row[0], sessionKey: try row[1], siteId: try row[2], checkInAt: try row[3])
            }
        }
    }
}

package enum TimesheetRows {
    package static func settings(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [TimesheetSettingRow] {
        try await tx.query(
            "SELECT kind, id, user_id, site_id, date, body, updated_at FROM timesheet_settings \(condition)"
        ).map { row in
            let id: String = try row[1]
            return TimesheetSettingRow(
                kind: try StoredValue.decode(
                    try row[0] as String, as: TimesheetSettingRow.Kind.self, table: "timesheet_settings", row: id,
                    column: "kind"),
                id: id, userId: try row[2], siteId: try row[3],
                date: (try row[4] as String?).flatMap(LocalDate.init), body: try row[5], updatedAt: try row[6])
        }
    }
}
