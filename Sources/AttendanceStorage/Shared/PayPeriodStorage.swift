import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func payPeriods(overlapping dates: ClosedRange<LocalDate>) async throws -> [PayPeriodRecord] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT start, "end", state, changed_at, changed_by, locked_at FROM pay_periods
                WHERE start <= \(dates.upperBound.description) AND "end" >= \(dates.lowerBound.description)
                ORDER BY start
                """
            ).map { row in
                let start: String = try row[0]
                return PayPeriodRecord(
                    dates: PayPeriodDates(
                        start: try PayPeriodRows.date(start, table: "pay_periods", row: start, column: "start"),
                        end: try PayPeriodRows.date(try row[1], table: "pay_periods", row: start, column: "end")),
                    state: try StoredValue.decode(
                        try row[2] as String, as: PayPeriodMachine.State.self, table: "pay_periods", row: start,
                        column: "state"),
                    changedAt: try row[3], changedBy: (try row[4] as String?).map { LedgerActor(rawValue: $0) },
                    lockedAt: try row[5])
            }
        }
    }

    public func changePayPeriod(
        _ record: PayPeriodRecord, from expected: PayPeriodMachine.State, snapshot: [LockedDay], audit: LedgerEvent
    ) async throws -> Bool {
        let start = record.dates.start.description
        // One lock for every period (PostgreSQL; SQLite has one writer): two admins changing the
        // same period, even one never stored, are serialised.
        return try await database.write(locking: ["pay periods"]) { tx in
            let stored = try await tx.value("SELECT state FROM pay_periods WHERE start = \(start)", as: String.self)
            guard (stored ?? PayPeriodMachine.State.open.rawValue) == expected.rawValue else { return false }
            try await tx.execute("DELETE FROM locked_days WHERE period_start = \(start)")
            if record.state == .open {
                // Back to open: the cycle's dates apply again (its history is in the ledger).
                try await tx.execute("DELETE FROM pay_periods WHERE start = \(start)")
            } else {
                try await tx.execute(
                    """
                    INSERT INTO pay_periods (start, "end", state, changed_at, changed_by, locked_at)
                    VALUES (\(start), \(record.dates.end.description), \(record.state.rawValue), \(record.changedAt),
                            \(record.changedBy?.rawValue), \(record.lockedAt))
                    ON CONFLICT (start) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at,
                        changed_by = excluded.changed_by, locked_at = excluded.locked_at
                    """)
            }
            if record.state == .locked {
                // In slices of 200 rows: one statement each, not one round trip per row.
                for slice in stride(from: 0, to: snapshot.count, by: 200) {
                    let values = snapshot[slice..<min(slice + 200, snapshot.count)].map { day -> SQL in
                        """
                        (\(start), \(day.userId), \(day.siteId), \(day.date.description),
                         \(String(decoding: day.row, as: UTF8.self)))
                        """
                    }
                    try await tx.execute(
                        """
                        INSERT INTO locked_days (period_start, user_id, site_id, date, "row")
                        VALUES \(SQL.joined(values, separator: ", "))
                        """)
                }
            }
            try await tx.appendLedger(audit)
            return true
        }
    }

    public func lockedDays(users: [UserID], dates: ClosedRange<LocalDate>) async throws -> [LockedDay] {
        guard !users.isEmpty else { return [] }
        return try await database.read { tx in
            try await PayPeriodRows.lockedDays(
                tx,
                """
                WHERE user_id \(anyOf: users.map(\.rawValue))
                    AND date BETWEEN \(dates.lowerBound.description) AND \(dates.upperBound.description)
                """)
        }
    }

    public func lockedDays(periodStart start: LocalDate) async throws -> [LockedDay] {
        try await database.read { tx in
            let order = "\(tx.dialect.byteOrdered("user_id")), date, \(tx.dialect.byteOrdered("site_id"))"
            return try await PayPeriodRows.lockedDays(
                tx, "WHERE period_start = \(start.description) ORDER BY \(raw: order)")
        }
    }
}

package enum PayPeriodRows {
    package static func lockedDays(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [LockedDay] {
        try await tx.query(
            "SELECT period_start, user_id, site_id, date, \"row\" FROM locked_days \(condition)"
        ).map { row in
            let key = "\(try row.decode(0, as: String.self)) \(try row.decode(1, as: String.self))"
            return LockedDay(
                periodStart: try date(try row[0], table: "locked_days", row: key, column: "period_start"),
                userId: try row[1], siteId: try row[2],
                date: try date(try row[3], table: "locked_days", row: key, column: "date"), row: try row[4])
        }
    }

    /// A stored local date (`YYYY-MM-DD`); anything else names its row.
    package static func date(_ text: String, table: String, row: String, column: String) throws -> LocalDate {
        guard let date = LocalDate(text) else {
            throw StoredValueError(table: table, row: row, column: column, value: text, expected: "a date YYYY-MM-DD")
        }
        return date
    }
}
