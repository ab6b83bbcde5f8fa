import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: PayPeriodRepository {
    static func registerPayPeriodMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-25 pay periods") { db in
            try db.execute(
                sql: """
                    CREATE TABLE payPeriods (
                        start TEXT PRIMARY KEY,
                        "end" TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'locked')),
                        changedAt REAL,
                        changedBy TEXT,
                        lockedAt REAL
                    );
                    CREATE TABLE lockedDays (
                        periodStart TEXT NOT NULL REFERENCES payPeriods(start),
                        userId TEXT NOT NULL,
                        siteId TEXT NOT NULL,
                        date TEXT NOT NULL,
                        row TEXT NOT NULL,
                        PRIMARY KEY (userId, date, siteId)
                    );
                    CREATE INDEX locked_days_by_period ON lockedDays (periodStart);
                    """)
        }
    }

    public func payPeriods(overlapping dates: ClosedRange<LocalDate>) async throws -> [PayPeriodRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM payPeriods WHERE start <= ? AND \"end\" >= ? ORDER BY start"),
                arguments: [dates.upperBound.description, dates.lowerBound.description]
            ).compactMap(Self.payPeriod)
        }
    }

    public func changePayPeriod(
        _ record: PayPeriodRecord, from expected: PayPeriodMachine.State, snapshot: [LockedDay], audit: LedgerEvent
    ) async throws -> Bool {
        try await writer.write { db in
            let start = record.dates.start.description
            let stored = try String.fetchOne(
                db.cachedStatement(sql: "SELECT state FROM payPeriods WHERE start = ?"), arguments: [start])
            guard (stored ?? PayPeriodMachine.State.open.rawValue) == expected.rawValue else { return false }
            try db.cachedStatement(
                sql: """
                    INSERT INTO payPeriods (start, "end", state, changedAt, changedBy, lockedAt)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (start) DO UPDATE SET state = excluded.state, changedAt = excluded.changedAt,
                        changedBy = excluded.changedBy, lockedAt = excluded.lockedAt
                    """
            ).execute(arguments: [
                start, record.dates.end.description, record.state.rawValue, record.changedAt?.timeIntervalSince1970,
                record.changedBy?.rawValue, record.lockedAt?.timeIntervalSince1970,
            ])
            try db.cachedStatement(sql: "DELETE FROM lockedDays WHERE periodStart = ?").execute(arguments: [start])
            if record.state == .open {
                // Back to open: the cycle's dates apply again (its history is in the ledger).
                try db.cachedStatement(sql: "DELETE FROM payPeriods WHERE start = ?").execute(arguments: [start])
            }
            for day in snapshot where record.state == .locked {
                try db.cachedStatement(
                    sql: "INSERT INTO lockedDays (periodStart, userId, siteId, date, row) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [
                    start, day.userId.rawValue, day.siteId.rawValue, day.date.description,
                    String(decoding: day.row, as: UTF8.self),
                ])
            }
            try Self.append(audit, db: db)
            return true
        }
    }

    public func lockedDays(users: [UserID], dates: ClosedRange<LocalDate>) async throws -> [LockedDay] {
        guard !users.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: users.count).joined(separator: ", ")
        var arguments = StatementArguments(users.map(\.rawValue))
        arguments += [dates.lowerBound.description, dates.upperBound.description]
        let bound = arguments
        return try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM lockedDays WHERE userId IN (\(placeholders)) AND date BETWEEN ? AND ?"),
                arguments: bound
            ).compactMap(Self.lockedDay)
        }
    }

    public func lockedDays(periodStart start: LocalDate) async throws -> [LockedDay] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM lockedDays WHERE periodStart = ? ORDER BY userId, date, siteId"),
                arguments: [start.description]
            ).compactMap(Self.lockedDay)
        }
    }

    private static func payPeriod(_ row: Row) -> PayPeriodRecord? {
        guard let start = LocalDate(row["start"] as String), let end = LocalDate(row["end"] as String),
            let state = PayPeriodMachine.State(rawValue: row["state"])
        else { return nil }
        let changedAt: Double? = row["changedAt"]
        let lockedAt: Double? = row["lockedAt"]
        return PayPeriodRecord(
            dates: PayPeriodDates(start: start, end: end), state: state,
            changedAt: changedAt.map(Date.init(timeIntervalSince1970:)),
            changedBy: (row["changedBy"] as String?).map { LedgerActor(rawValue: $0) },
            lockedAt: lockedAt.map(Date.init(timeIntervalSince1970:)))
    }

    private static func lockedDay(_ row: Row) -> LockedDay? {
        guard let start = LocalDate(row["periodStart"] as String), let date = LocalDate(row["date"] as String) else {
            return nil
        }
        return LockedDay(
            periodStart: start, userId: UserID(row["userId"]), siteId: SiteID(row["siteId"]), date: date,
            row: Data((row["row"] as String).utf8))
    }
}
