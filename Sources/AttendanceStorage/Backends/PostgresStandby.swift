/// Positions in PostgreSQL's write-ahead log, for reading from a hot standby within a bound of
/// staleness (docs/OPERATIONS.md, "A standby for reads").
extension PostgresRepository {
    /// In bytes from the log's start (`pg_lsn` minus `0/0`): on a primary, where its log ends now
    /// (every commit answered is before it); on a standby, how far it has replayed (all visible).
    public func walPosition() async throws -> UInt64 {
        let position = try await database.read { tx in
            try await tx.value(
                """
                SELECT ((CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() \
                ELSE pg_current_wal_insert_lsn() END) - '0/0'::pg_lsn)::bigint
                """, as: Int64.self)
        }
        guard let position, position >= 0 else {
            throw RepositoryError(kind: .notFound, detail: "the database has no write-ahead log position yet")
        }
        return UInt64(position)
    }
}
