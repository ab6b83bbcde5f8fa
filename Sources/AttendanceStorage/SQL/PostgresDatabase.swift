import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The storage port on PostgreSQL, over PostgresNIO's pool: transactions with per-key advisory
/// locks, reads on one connection.
package final class PostgresDatabase: SQLDatabase {
    package let client: PostgresClient
    package let logger: Logger
    package var dialect: SQLDialect { .postgresql }

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    package func write<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        do {
            return try await transaction(locking: keys, body)
        } catch let error as PostgresTransactionError {
            // The body's own error, as the body threw it (a conflict, a refusal), when that is
            // what ended the transaction; a failed BEGIN or COMMIT stays as PostgresNIO said it.
            if error.beginError == nil, error.commitError == nil, let thrown = error.closureError { throw thrown }
            throw error
        }
    }

    private func transaction<T: Sendable>(
        locking keys: [String], _ body: @escaping @Sendable (any SQLTransaction) async throws -> T
    ) async throws -> T {
        try await client.withTransaction(logger: logger) { connection in
            let transaction = PostgresTransaction(connection: connection, logger: self.logger)
            if keys.count == 1 {
                try await transaction.execute("SELECT pg_advisory_xact_lock(hashtext(\(keys[0])))")
            } else if !keys.isEmpty {
                // A volatile function in the select list runs after ORDER BY: the locks are taken in order.
                try await connection.query(
                    """
                    SELECT pg_advisory_xact_lock(id)
                    FROM (SELECT DISTINCT hashtext(k)::bigint AS id FROM unnest(\(keys)::text[]) AS k) AS ids
                    ORDER BY id
                    """, logger: self.logger)
            }
            return try await body(transaction)
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T
    {
        try await client.withConnection { connection in
            try await body(PostgresTransaction(connection: connection, logger: self.logger))
        }
    }

    /// `VACUUM FULL personal_keys` (outside a transaction, as VACUUM must run): a new file of the
    /// keys left, the old one unlinked. A few kilobytes per thousand employees.
    package func scrubFreedSpace() async throws {
        try await client.withConnection { connection in
            _ = try await connection.query("VACUUM FULL personal_keys", logger: self.logger)
        }
    }

    /// A unique constraint refused the write (also when it happened inside a transaction, whose
    /// error wraps it).
    package func isUniqueViolation(_ error: any Error) -> Bool {
        if let wrapped = (error as? PostgresTransactionError)?.closureError { return isUniqueViolation(wrapped) }
        return (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }
}

package struct PostgresTransaction: SQLTransaction {
    package let connection: PostgresConnection
    package let logger: Logger
    package var dialect: SQLDialect { .postgresql }

    /// The rows as they arrive: each is read while the server still sends the next ones (the
    /// async row sequence), not after the whole result was buffered.
    package func query(_ sql: SQL) async throws -> [SQLRow] {
        try await query(sql) { $0 }
    }

    package func query<Value>(_ sql: SQL, each transform: (SQLRow) throws -> Value?) async throws -> [Value] {
        var values: [Value] = []
        var columns: SQLColumns?
        for try await row in try await connection.query(Self.query(sql), logger: logger) {
            let names = columns ?? SQLColumns(row.map(\.columnName))
            columns = names
            if let value = try transform(try Self.row(row, columns: names)) { values.append(value) }
        }
        return values
    }

    @discardableResult
    package func execute(_ sql: SQL) async throws -> Int {
        // The command tag ("UPDATE 3") counts the rows a statement changed.
        try await run(sql).metadata.rows ?? 0
    }

    /// Every row and the command tag (the future-based call: the async one gives no tag).
    private func run(_ sql: SQL) async throws -> PostgresQueryResult {
        let result: EventLoopFuture<PostgresQueryResult> = connection.query(Self.query(sql), logger: logger)
        return try await result.get()
    }

    package static func query(_ sql: SQL) -> PostgresQuery {
        let binds = sql.binds(for: .postgresql)
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(data: value))
            case .bool(let value): bindings.append(value)
            case .textArray(let values): bindings.append(values)
            }
        }
        return PostgresQuery(unsafeSQL: sql.text(for: .postgresql), binds: bindings)
    }

    /// A PostgresNIO row as the storage code reads rows.
    package static func row(_ row: PostgresRow, columns: SQLColumns? = nil) throws -> SQLRow {
        SQLRow(columns: columns ?? SQLColumns(row.map(\.columnName)), postgres: row.makeRandomAccess())
    }

    package static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        // The common cells read straight from their bytes (text is UTF-8 in either format; the
        // numbers of the binary format are big-endian); a timesheet month reads 6 million of them.
        switch (cell.dataType, cell.format) {
        case (.text, _), (.varchar, _), (.name, _), (.bpchar, _): return .text(String(buffer: bytes))
        case (.float8, .binary) where bytes.readableBytes == 8:
            return .real(Double(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt64.self) ?? 0))
        case (.int8, .binary) where bytes.readableBytes == 8:
            return .integer(bytes.getInteger(at: bytes.readerIndex, as: Int64.self) ?? 0)
        case (.int4, .binary) where bytes.readableBytes == 4:
            return .integer(Int64(bytes.getInteger(at: bytes.readerIndex, as: Int32.self) ?? 0))
        case (.bool, .binary) where bytes.readableBytes == 1:
            return .bool(bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) != 0)
        default: break
        }
        switch cell.dataType {
        case .bool: return .bool(try cell.decode(Bool.self))
        case .int2, .int4, .int8, .oid: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .numeric:
            let text = try cell.decode(String.self)
            guard let number = Double(text) else { return .text(text) }
            return .real(number)
        case .bytea: return .blob(Data(buffer: try cell.decode(ByteBuffer.self)))
        default: return .text(try cell.decode(String.self))
        }
    }
}
