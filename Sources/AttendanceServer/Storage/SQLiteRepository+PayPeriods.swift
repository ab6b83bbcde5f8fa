import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: PayPeriodRepository {

    public func payPeriods(overlapping dates: ClosedRange<LocalDate>) async throws -> [PayPeriodRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM pay_periods WHERE start <= ? AND \"end\" >= ? ORDER BY start"),
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
                db.cachedStatement(sql: "SELECT state FROM pay_periods WHERE start = ?"), arguments: [start])
            guard (stored ?? PayPeriodMachine.State.open.rawValue) == expected.rawValue else { return false }
            try db.cachedStatement(
                sql: """
                    INSERT INTO pay_periods (start, "end", state, changed_at, changed_by, locked_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (start) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at,
                        changed_by = excluded.changed_by, locked_at = excluded.locked_at
                    """
            ).execute(arguments: [
                start, record.dates.end.description, record.state.rawValue, record.changedAt?.timeIntervalSince1970,
                record.changedBy?.rawValue, record.lockedAt?.timeIntervalSince1970,
            ])
            try db.cachedStatement(sql: "DELETE FROM locked_days WHERE period_start = ?").execute(arguments: [start])
            if record.state == .open {
                // Back to open: the cycle's dates apply again (its history is in the ledger).
                try db.cachedStatement(sql: "DELETE FROM pay_periods WHERE start = ?").execute(arguments: [start])
            }
            for day in snapshot where record.state == .locked {
                try db.cachedStatement(
                    sql: "INSERT INTO locked_days (period_start, user_id, site_id, date, row) VALUES (?, ?, ?, ?, ?)"
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
                    sql: "SELECT * FROM locked_days WHERE user_id IN (\(placeholders)) AND date BETWEEN ? AND ?"),
                arguments: bound
            ).compactMap(Self.lockedDay)
        }
    }

    public func lockedDays(periodStart start: LocalDate) async throws -> [LockedDay] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM locked_days WHERE period_start = ? ORDER BY user_id, date, site_id"),
                arguments: [start.description]
            ).compactMap(Self.lockedDay)
        }
    }

    private static func payPeriod(_ row: Row) -> PayPeriodRecord? {
        guard let start = LocalDate(row["start"] as String), let end = LocalDate(row["end"] as String),
            let state = PayPeriodMachine.State(rawValue: row["state"])
        else { return nil }
        let changedAt: Double? = row["changed_at"]
        let lockedAt: Double? = row["locked_at"]
        return PayPeriodRecord(
            dates: PayPeriodDates(start: start, end: end), state: state,
            changedAt: changedAt.map(Date.init(timeIntervalSince1970:)),
            changedBy: (row["changed_by"] as String?).map { LedgerActor(rawValue: $0) },
            lockedAt: lockedAt.map(Date.init(timeIntervalSince1970:)))
    }

    private static func lockedDay(_ row: Row) -> LockedDay? {
        guard let start = LocalDate(row["period_start"] as String), let date = LocalDate(row["date"] as String) else {
            return nil
        }
        return LockedDay(
            periodStart: start, userId: UserID(row["user_id"]), siteId: SiteID(row["site_id"]), date: date,
            row: Data((row["row"] as String).utf8))
    }
}
