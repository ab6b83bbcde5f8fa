/// Positions in PostgreSQL's write-ahead log, for reading from a hot standby within a bound of
/// staleness (docs/OPERATIONS.md, "A standby for reads").
extension PostgresRepository {
    /// On a primary, where its log ends now: every commit answered so far is before it. On a
    /// standby, how far it has replayed its primary's log: everything before it is visible there.
    public func walPosition() async throws -> UInt64 {
        let text = try await database.read { tx in
            try await tx.value(
                """
                SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() \
                ELSE pg_current_wal_insert_lsn() END)::text
                """, as: String.self)
        }
        guard let text, let position = Self.walPosition(text) else {
            throw RepositoryError(kind: .notFound, detail: "the database has no write-ahead log position yet")
        }
        return position
    }

    /// `16/B374D848` as a number: the high and low 32 bits in hexadecimal.
    static func walPosition(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16),
            high <= UInt64(UInt32.max), low <= UInt64(UInt32.max)
        else { return nil }
        return high << 32 | low
    }
}
