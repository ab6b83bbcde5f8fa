import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: TimesheetRepository {

    public func putTimesheetSetting(_ row: TimesheetSettingRow, audit: LedgerEvent) async throws {
        try await writer.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO timesheet_settings (kind, id, user_id, site_id, date, body, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, id) DO UPDATE SET user_id = excluded.user_id, site_id = excluded.site_id,
                        date = excluded.date, body = excluded.body, updated_at = excluded.updated_at
                    """
            ).execute(arguments: [
                row.kind.rawValue, row.id, row.userId?.rawValue, row.siteId?.rawValue, row.date?.description,
                String(decoding: row.body, as: UTF8.self), row.updatedAt.timeIntervalSince1970,
            ])
            try Self.append(audit, db: db)
        }
    }

    public func deleteTimesheetSetting(
        kind: TimesheetSettingRow.Kind, id: String, audit: LedgerEvent
    ) async throws -> Bool {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM timesheet_settings WHERE kind = ? AND id = ?")
                .execute(arguments: [kind.rawValue, id])
            guard db.changesCount > 0 else { return false }
            try Self.append(audit, db: db)
            return true
        }
    }

    public func timesheetSetting(kind: TimesheetSettingRow.Kind, id: String) async throws -> TimesheetSettingRow? {
        try await writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM timesheet_settings WHERE kind = ? AND id = ?"),
                arguments: [kind.rawValue, id]
            ).map(Self.setting)
        }
    }

    public func timesheetSettings(
        kind: TimesheetSettingRow.Kind, dates: ClosedRange<LocalDate>?
    ) async throws
        -> [TimesheetSettingRow]
    {
        try await writer.read { db in
            if let dates {
                return try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT * FROM timesheet_settings WHERE kind = ? AND date BETWEEN ? AND ? ORDER BY id"),
                    arguments: [kind.rawValue, dates.lowerBound.description, dates.upperBound.description]
                ).map(Self.setting)
            }
            return try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM timesheet_settings WHERE kind = ? ORDER BY id"),
                arguments: [kind.rawValue]
            ).map(Self.setting)
        }
    }

    public func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws
        -> [SessionRecord]
    {
        guard !users.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: users.count).joined(separator: ", ")
        var sql = """
            SELECT \(Self.sessionColumns) FROM sessions WHERE user_id IN (\(placeholders))
                AND check_in_at < ? AND (check_out_at IS NULL OR check_out_at >= ?)
            """
        var arguments = StatementArguments(users.map(\.rawValue))
        arguments += [window.upperBound.timeIntervalSince1970, window.lowerBound.timeIntervalSince1970]
        if let siteId {
            sql += " AND site_id = ?"
            arguments += [siteId.rawValue]
        }
        let (text, bound) = (sql, arguments)
        return try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: text), arguments: bound).map(Self.sessionRecord)
        }
    }

    public func pendingRequestTargets() async throws -> [PendingRequestTarget] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT user_id, session_key, site_id, check_in_at FROM correction_requests
                        WHERE state = 'pending' ORDER BY created_at, id
                        """)
            ).map { row in
                let checkIn: Double? = row["check_in_at"]
                return PendingRequestTarget(
                    userId: UserID(row["user_id"]), sessionKey: (row["session_key"] as String?).map { SessionKey($0) },
                    siteId: (row["site_id"] as String?).map { SiteID($0) },
                    checkInAt: checkIn.map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    private static func setting(_ row: Row) throws -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: try StoredValue.decode(
                row["kind"] as String, as: TimesheetSettingRow.Kind.self, table: "timesheet_settings",
                row: row["id"] as String, column: "kind"),
            id: row["id"],
            userId: (row["user_id"] as String?).map { UserID($0) },
            siteId: (row["site_id"] as String?).map { SiteID($0) },
            date: (row["date"] as String?).flatMap(LocalDate.init), body: Data((row["body"] as String).utf8),
            updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }
}
