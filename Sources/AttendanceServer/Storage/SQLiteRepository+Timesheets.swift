import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: TimesheetRepository {
    static func registerTimesheetMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-25 timesheet settings") { db in
            try db.execute(
                sql: """
                    CREATE TABLE timesheetSettings (
                        kind TEXT NOT NULL,
                        id TEXT NOT NULL,
                        userId TEXT,
                        siteId TEXT,
                        date TEXT,
                        body TEXT NOT NULL,
                        updatedAt REAL NOT NULL,
                        PRIMARY KEY (kind, id)
                    );
                    CREATE INDEX timesheet_settings_by_date ON timesheetSettings (kind, date);
                    CREATE INDEX sessions_by_time ON sessions (checkInAt, sessionKey);
                    """)
        }
    }

    public func putTimesheetSetting(_ row: TimesheetSettingRow, audit: LedgerEvent) async throws {
        try await writer.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO timesheetSettings (kind, id, userId, siteId, date, body, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, id) DO UPDATE SET userId = excluded.userId, siteId = excluded.siteId,
                        date = excluded.date, body = excluded.body, updatedAt = excluded.updatedAt
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
            try db.cachedStatement(sql: "DELETE FROM timesheetSettings WHERE kind = ? AND id = ?")
                .execute(arguments: [kind.rawValue, id])
            guard db.changesCount > 0 else { return false }
            try Self.append(audit, db: db)
            return true
        }
    }

    public func timesheetSetting(kind: TimesheetSettingRow.Kind, id: String) async throws -> TimesheetSettingRow? {
        try await writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM timesheetSettings WHERE kind = ? AND id = ?"),
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
                        sql: "SELECT * FROM timesheetSettings WHERE kind = ? AND date BETWEEN ? AND ? ORDER BY id"),
                    arguments: [kind.rawValue, dates.lowerBound.description, dates.upperBound.description]
                ).map(Self.setting)
            }
            return try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM timesheetSettings WHERE kind = ? ORDER BY id"),
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
            SELECT \(Self.sessionColumns) FROM sessions WHERE userId IN (\(placeholders))
                AND checkInAt < ? AND (checkOutAt IS NULL OR checkOutAt >= ?)
            """
        var arguments = StatementArguments(users.map(\.rawValue))
        arguments += [window.upperBound.timeIntervalSince1970, window.lowerBound.timeIntervalSince1970]
        if let siteId {
            sql += " AND siteId = ?"
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
                        SELECT userId, sessionKey, siteId, checkInAt FROM correctionRequests
                        WHERE state = 'pending' ORDER BY createdAt, id
                        """)
            ).map { row in
                let checkIn: Double? = row["checkInAt"]
                return PendingRequestTarget(
                    userId: UserID(row["userId"]), sessionKey: (row["sessionKey"] as String?).map { SessionKey($0) },
                    siteId: (row["siteId"] as String?).map { SiteID($0) },
                    checkInAt: checkIn.map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    private static func setting(_ row: Row) throws -> TimesheetSettingRow {
        TimesheetSettingRow(
            kind: try StoredValue.decode(
                row["kind"] as String, as: TimesheetSettingRow.Kind.self, table: "timesheetSettings",
                row: row["id"] as String, column: "kind"),
            id: row["id"],
            userId: (row["userId"] as String?).map { UserID($0) },
            siteId: (row["siteId"] as String?).map { SiteID($0) },
            date: (row["date"] as String?).flatMap(LocalDate.init), body: Data((row["body"] as String).utf8),
            updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }
}
