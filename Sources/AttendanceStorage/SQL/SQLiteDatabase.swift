import Foundation
import GRDB
import GRDBSQLite

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

    package func closeEachGroupCommit(
        with body: @escaping @Sendable (any SQLTransaction) async throws -> @Sendable () -> Void
    ) -> Bool {
        group.closeEachGroup { db in try Self.run(body, on: db) }
        return true
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

    /// Copies the WAL's pages into the file and truncates the WAL, so no frame written before the
    /// erasure (an old page holding a key or a name) stays in it. A reader still on an older
    /// snapshot leaves some frames; the next checkpoint takes them.
    package func scrubFreedSpace() async throws {
        try await writer.writeWithoutTransaction { db in
            _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    private static func run<T: Sendable>(
        _ body: @escaping @Sendable (any SQLTransaction) async throws -> T, on db: Database
    ) throws -> T {
        let transaction = SQLiteTransaction(db: db)
        return try CallerThreadExecutor<T>.run { try await body(transaction) }
    }
}

/// GRDB's connection inside its write or read: used only by the jobs `CallerThreadExecutor` runs
/// on the thread that holds it (GRDB checks this when it hands out the connection). Statements
/// come from GRDB's statement cache; their values are bound and their rows read with SQLite's C
/// API, which skips GRDB's generic arguments and row cursors on the check-in path (decision 0029).
package struct SQLiteTransaction: SQLTransaction, @unchecked Sendable {
    package let db: Database
    package var dialect: SQLDialect { .sqlite }

    package func query(_ sql: SQL) async throws -> [SQLRow] {
        let text = sql.text(for: .sqlite)
        let statement = try db.cachedStatement(sql: text)
        let handle = statement.sqliteStatement
        try bind(sql.binds(for: .sqlite), to: handle, text: text)
        defer { sqlite3_reset(handle) }
        let columns = SQLColumns(statement.columnNames)
        let count = sqlite3_column_count(handle)
        var rows: [SQLRow] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_DONE:
                return rows
            case SQLITE_ROW:
                var values: [SQLValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<count { values.append(Self.value(handle, index)) }
                rows.append(SQLRow(columns: columns, values: values))
            case let code:
                throw error(code, text: text)
            }
        }
    }

    @discardableResult
    package func execute(_ sql: SQL) async throws -> Int {
        _ = try await query(sql)
        return db.changesCount
    }

    /// Binds `binds` to the statement's placeholders, in order (a copy of each text and blob).
    private func bind(_ binds: [SQLValue], to handle: OpaquePointer, text: String) throws {
        // Every placeholder is bound below (the count is checked), so no old binding survives.
        sqlite3_reset(handle)
        guard binds.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(binds.count) values for the statement's placeholders",
                sql: text)
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .bool(let flag): code = sqlite3_bind_int64(handle, index, flag ? 1 : 0)
            case .text(let string): code = sqlite3_bind_text(handle, index, string, -1, Self.transient)
            // `SQL` expands a list into one value per placeholder on SQLite: an array never comes here.
            case .textArray:
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an array bound on SQLite", sql: text)
            case .blob(let data):
                code =
                    data.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : data.withUnsafeBytes {
                        sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient)
                    }
            }
            guard code == SQLITE_OK else { throw error(code, text: text) }
        }
    }

    /// SQLite copies a bound text or blob before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func value(_ handle: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The connection's error for a failed step or bind, as GRDB reports its own.
    private func error(_ code: Int32, text: String) -> DatabaseError {
        let connection = db.sqliteConnection
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message = connection.map { String(cString: sqlite3_errmsg($0)) }
        return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: text)
    }
}
