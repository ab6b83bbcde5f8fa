import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository: PayPeriodRepository {
    static let payPeriodStatements = [
        """
        CREATE TABLE pay_periods (start TEXT PRIMARY KEY, "end" TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'approved', 'locked')), changed_at DOUBLE PRECISION,
            changed_by TEXT, locked_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE locked_days (period_start TEXT NOT NULL REFERENCES pay_periods(start), user_id TEXT NOT NULL,
            site_id TEXT NOT NULL, date TEXT NOT NULL, row TEXT NOT NULL, PRIMARY KEY (user_id, date, site_id))
        """,
        "CREATE INDEX locked_days_by_period ON locked_days (period_start)",
    ]

    public func payPeriods(overlapping dates: ClosedRange<LocalDate>) async throws -> [PayPeriodRecord] {
        let rows = try await client.query(
            """
            SELECT start, "end", state, changed_at, changed_by, locked_at FROM pay_periods
            WHERE start <= \(dates.upperBound.description) AND "end" >= \(dates.lowerBound.description)
            ORDER BY start
            """, logger: logger)
        var found: [PayPeriodRecord] = []
        for try await (start, end, state, changedAt, changedBy, lockedAt) in rows.decode(
            (String, String, String, Double?, String?, Double?).self)
        {
            guard let start = LocalDate(start), let end = LocalDate(end),
                let state = PayPeriodMachine.State(rawValue: state)
            else { continue }
            found.append(
                PayPeriodRecord(
                    dates: PayPeriodDates(start: start, end: end), state: state,
                    changedAt: changedAt.map(Date.init(timeIntervalSince1970:)),
                    changedBy: changedBy.map { LedgerActor(rawValue: $0) },
                    lockedAt: lockedAt.map(Date.init(timeIntervalSince1970:))))
        }
        return found
    }

    public func changePayPeriod(
        _ record: PayPeriodRecord, from expected: PayPeriodMachine.State, snapshot: [LockedDay], audit: LedgerEvent
    ) async throws -> Bool {
        let start = record.dates.start.description
        return try await client.withTransaction(logger: logger) { connection in
            // The row's lock (or, for a period never stored, the table's advisory lock) serializes
            // two admins changing the same period.
            try await connection.query("SELECT pg_advisory_xact_lock(731003)", logger: self.logger)
            var stored = PayPeriodMachine.State.open.rawValue
            for try await state in try await connection.query(
                "SELECT state FROM pay_periods WHERE start = \(start)", logger: self.logger
            ).decode(String.self) { stored = state }
            guard stored == expected.rawValue else { return false }
            try await connection.query(
                """
                INSERT INTO pay_periods (start, "end", state, changed_at, changed_by, locked_at)
                VALUES (\(start), \(record.dates.end.description), \(record.state.rawValue),
                        \(record.changedAt?.timeIntervalSince1970), \(record.changedBy?.rawValue),
                        \(record.lockedAt?.timeIntervalSince1970))
                ON CONFLICT (start) DO UPDATE SET state = EXCLUDED.state, changed_at = EXCLUDED.changed_at,
                    changed_by = EXCLUDED.changed_by, locked_at = EXCLUDED.locked_at
                """, logger: self.logger)
            try await connection.query("DELETE FROM locked_days WHERE period_start = \(start)", logger: self.logger)
            if record.state == .open {
                // Back to open: the cycle's dates apply again (its history is in the ledger).
                try await connection.query("DELETE FROM pay_periods WHERE start = \(start)", logger: self.logger)
            }
            if record.state == .locked {
                // In slices of 1,000 rows: one statement each, not one round trip per row.
                for slice in stride(from: 0, to: snapshot.count, by: 1_000) {
                    let part = snapshot[slice..<min(slice + 1_000, snapshot.count)]
                    try await connection.query(
                        """
                        INSERT INTO locked_days (period_start, user_id, site_id, date, row)
                        SELECT \(start), * FROM unnest(\(part.map(\.userId.rawValue))::text[],
                            \(part.map(\.siteId.rawValue))::text[], \(part.map(\.date.description))::text[],
                            \(part.map { String(decoding: $0.row, as: UTF8.self) })::text[])
                        """, logger: self.logger)
                }
            }
            try await self.append(audit, on: connection)
            return true
        }
    }

    public func lockedDays(users: [UserID], dates: ClosedRange<LocalDate>) async throws -> [LockedDay] {
        guard !users.isEmpty else { return [] }
        return try await lockedDays(
            """
            SELECT period_start, user_id, site_id, date, row FROM locked_days
            WHERE user_id = ANY(\(users.map(\.rawValue))) AND date BETWEEN \(dates.lowerBound.description)
                AND \(dates.upperBound.description)
            """)
    }

    public func lockedDays(periodStart start: LocalDate) async throws -> [LockedDay] {
        try await lockedDays(
            """
            SELECT period_start, user_id, site_id, date, row FROM locked_days WHERE period_start = \(start.description)
            ORDER BY user_id COLLATE "C", date, site_id COLLATE "C"
            """)
    }

    private func lockedDays(_ query: PostgresQuery) async throws -> [LockedDay] {
        var found: [LockedDay] = []
        for try await (start, user, site, date, row) in try await client.query(query, logger: logger)
            .decode((String, String, String, String, String).self)
        {
            guard let start = LocalDate(start), let date = LocalDate(date) else { continue }
            found.append(
                LockedDay(
                    periodStart: start, userId: UserID(user), siteId: SiteID(site), date: date, row: Data(row.utf8)))
        }
        return found
    }
}
