import Foundation

/// One transaction, or one read, on either database: what the storage code writes once.
public protocol SQLTransaction: Sendable {
    var dialect: SQLDialect { get }
    /// Runs a statement and returns its rows (a write's `RETURNING` rows; none otherwise).
    func query(_ sql: SQL) async throws -> [SQLRow]
    /// Runs a statement and turns each row into a value as it arrives (a nil is left out): a large
    /// read never holds all its rows and their values at once.
    func query<Value>(_ sql: SQL, each transform: (SQLRow) throws -> Value?) async throws -> [Value]
    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) async throws -> Int
}

extension SQLTransaction {
    public func query<Value>(_ sql: SQL, each transform: (SQLRow) throws -> Value?) async throws -> [Value] {
        try await query(sql).compactMap(transform)
    }
}

/// A database as the storage code sees it: transactions and reads, and what its errors mean.
/// One implementation per database (`SQLiteDatabase`, `PostgresDatabase`); everything else is
/// written once.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one transaction that commits when it returns and rolls back when it throws.
    /// On PostgreSQL the transaction first takes the advisory locks of `keys` (in a stable
    /// order); SQLite has one writer, which serialises every write anyway.
    func write<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T
    /// Runs `body` on one snapshot of the database; it may not write.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T
    /// A device event's write: as `write`, and on SQLite committed with the other device writes
    /// waiting now (one fsync for the group, `SQLiteGroupCommit`).
    func deviceWrite<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T
    /// Whether `error` is a unique constraint's refusal (a conflict to report, not a failure).
    func isUniqueViolation(_ error: any Error) -> Bool
    /// After an erasure: makes what deleted rows held leave the database's files where the database
    /// allows it (docs/LEDGER.md, "Erasure"). SQLite zeroes freed content as it writes
    /// (`secure_delete`) and here empties its WAL into the file; PostgreSQL rewrites the table of
    /// personal keys, so no old version of an erased key stays in it.
    func scrubFreedSpace() async throws
    /// From now on, ends each group commit of device writes with `body` in its transaction and runs
    /// what it returns once that has committed; false where device writes don't commit in groups
    /// (PostgreSQL), which leaves them as they were.
    func closeEachGroupCommit(
        with body: @escaping @Sendable (any SQLTransaction) async throws -> @Sendable () -> Void
    ) -> Bool
}

extension SQLDatabase {
    public func closeEachGroupCommit(
        with body: @escaping @Sendable (any SQLTransaction) async throws -> @Sendable () -> Void
    ) -> Bool {
        false
    }

    public func deviceWrite<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        try await write(locking: keys, body)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T
    {
        try await write(locking: [], body)
    }
}

extension SQLTransaction {
    /// The first row's first value, or nil when there is no row (counts, single values).
    public func value<Value: SQLDecodable>(_ sql: SQL, as _: Value.Type = Value.self) async throws -> Value? {
        guard let row = try await query(sql).first else { return nil }
        return try row.decode(0)
    }
}
