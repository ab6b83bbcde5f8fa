import Foundation
import GRDB

/// The storage port on SQLite, over GRDB: a write runs inside GRDB's one writer (a device event's
/// inside the group commit), a read on one of its readers, each on GRDB's thread with the shared
/// async code run there by `CallerThreadExecutor`.
package final class SQLiteDatabase: SQLDatabase {
    package let writer: any DatabaseWriter
    package let group: SQLiteGroupCommit
    package var dialect: SQLDialect { .sqlite }

    package init(writer: any DatabaseWriter, group: SQLiteGroupCommit) {
        self.writer = writer
        self.group = group
    }

    package func write<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        try await writer.write { db in try Self.run(body, on: db) }
    }

    package func deviceWrite<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        try await group.write { db in try Self.run(body, on: db) }
    }

    /// A write that blocks the calling thread until it has committed (opening a file: migrations).
    package func writeNow<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) throws -> T {
        try writer.write { db in try Self.run(body, on: db) }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T
    {
        try await writer.read { db in try Self.run(body, on: db) }
    }

    package func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT
    }

    private static func run<T: Sendable>(
        _ body: @escaping @Sendable (any SQLTransaction) async throws -> T, on db: Database
    ) throws -> T {
        let transaction = SQLiteTransaction(db: db)
        return try CallerThreadExecutor<T>.run { try await body(transaction) }
    }
}

/// GRDB's connection inside its write or read: used only by the jobs `CallerThreadExecutor` runs
/// on the thread that holds it (GRDB checks this on every statement).
package struct SQLiteTransaction: SQLTransaction, @unchecked Sendable {
    package let db: Database
    package var dialect: SQLDialect { .sqlite }

    package func query(_ sql: SQL) async throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql.text(for: .sqlite))
        let columns = SQLColumns(statement.columnNames)
        let cursor = try Row.fetchCursor(statement, arguments: Self.arguments(sql.binds(for: .sqlite)))
        var rows: [SQLRow] = []
        while let row = try cursor.next() {
            rows.append(SQLRow(columns: columns, values: row.databaseValues.map(Self.value)))
        }
        return rows
    }

    @discardableResult
    package func execute(_ sql: SQL) async throws -> Int {
        try db.cachedStatement(sql: sql.text(for: .sqlite)).execute(arguments: Self.arguments(sql.binds(for: .sqlite)))
        return db.changesCount
    }

    private static func arguments(_ binds: [SQLValue]) -> StatementArguments {
        StatementArguments(
            binds.map { bind -> DatabaseValue in
                switch bind {
                case .null: .null
                case .integer(let value): value.databaseValue
                case .real(let value): value.databaseValue
                case .text(let value): value.databaseValue
                case .blob(let value): value.databaseValue
                case .bool(let value): value.databaseValue
                // `SQL` expands a list into one value per placeholder on SQLite.
                case .textArray(let values): values.joined(separator: ",").databaseValue
                }
            })
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }
}
