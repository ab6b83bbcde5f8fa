import AttendanceModels
import Foundation
import PostgresNIO

/// A row as either database returns it: the values by position, and the columns' names. SQLite's
/// are read into values at once; PostgreSQL's cells are kept as they came and each is read when
/// the storage code asks for it (a timesheet month reads 6 million cells: no second copy of them).
public struct SQLRow: Sendable {
    public let columns: SQLColumns
    private let cells: Cells

    private enum Cells: Sendable {
        case values([SQLValue])
        case postgres(PostgresRandomAccessRow)
    }

    public init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.cells = .values(values)
    }

    package init(columns: SQLColumns, postgres row: PostgresRandomAccessRow) {
        self.columns = columns
        self.cells = .postgres(row)
    }

    /// The values by position.
    public var values: [SQLValue] {
        get throws { try (0..<count).map(value) }
    }

    private var count: Int {
        switch cells {
        case .values(let values): values.count
        case .postgres(let row): row.count
        }
    }

    private func value(_ index: Int) throws -> SQLValue {
        switch cells {
        case .values(let values): values[index]
        case .postgres(let row): try PostgresTransaction.value(row[index])
        }
    }

    /// The value at `index`, decoded: an error names the column, the value and the type wanted.
    public func decode<Value: SQLDecodable>(_ index: Int, as _: Value.Type = Value.self) throws -> Value {
        guard index < count else {
            throw SQLDecodingError(column: "#\(index)", value: "(none)", expected: "\(Value.self)")
        }
        let cell = try value(index)
        guard let value = Value(sqlValue: cell) else {
            throw SQLDecodingError(column: columns.name(index), value: "\(cell)", expected: "\(Value.self)")
        }
        return value
    }

    public subscript<Value: SQLDecodable>(index: Int) -> Value {
        get throws { try decode(index) }
    }

}

/// The column names of a result, shared by its rows (for the errors that name a column).
public struct SQLColumns: Sendable {
    public let names: [String]

    public init(_ names: [String]) { self.names = names }

    package func name(_ index: Int) -> String { index < names.count ? names[index] : "#\(index)" }
}

/// A value that does not decode as the type the code reads: the column, the value and the type.
public struct SQLDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var column: String
    public var value: String
    public var expected: String
    public var description: String { "column \(column) holds \(value.prefix(200)), expected \(expected)" }
}

/// A Swift value read from a row. SQLite keeps booleans as integers, PostgreSQL integers of its own
/// widths: both read back as the Swift type.
public protocol SQLDecodable {
    init?(sqlValue: SQLValue)
}

extension String: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }
}

extension Int64: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(let value): self = value
        case .bool(let value): self = value ? 1 : 0
        default: return nil
        }
    }
}

extension Int: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        guard let value = Int64(sqlValue: sqlValue) else { return nil }
        self = Int(value)
    }
}

extension Double: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .bool(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
}

extension Data: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: return nil
        }
    }
}

extension Date: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        guard let seconds = Double(sqlValue: sqlValue) else { return nil }
        self = Date(timeIntervalSince1970: seconds)
    }
}

extension Identifier: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        guard let text = String(sqlValue: sqlValue) else { return nil }
        self.init(text)
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public init?(sqlValue: SQLValue) {
        if case .null = sqlValue {
            self = .none
            return
        }
        guard let value = Wrapped(sqlValue: sqlValue) else { return nil }
        self = .some(value)
    }
}
