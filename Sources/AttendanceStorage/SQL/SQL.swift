import AttendanceModels
import Foundation

/// A value bound to a statement or read from a row, on either database.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case bool(Bool)
    /// A list of texts bound as one PostgreSQL array (`anyOf`); SQLite binds each text.
    case textArray([String])
}

/// The database a statement is rendered for: the one thing the shared storage code asks of it
/// (placeholders, and the few places where the two databases' SQL differs).
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgresql
}

/// A Swift value that binds to a statement.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .bool(self) } }
extension Data: SQLBindable { public var sqlValue: SQLValue { .blob(self) } }
extension Date: SQLBindable {
    /// Times are stored as epoch seconds (`REAL`, `DOUBLE PRECISION`): exact, comparable, zone-free.
    public var sqlValue: SQLValue { .real(timeIntervalSince1970) }
}
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
extension Identifier: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

/// A statement with its values kept apart from its text: `"… WHERE id = \(id)"` binds `id`, and
/// `\(raw: columns)` inserts trusted SQL text (column lists, never input).
public struct SQL: Sendable, ExpressibleByStringInterpolation, Hashable {
    package enum Part: Hashable, Sendable {
        case text(String)
        case bind(SQLValue)
        /// `= ANY($n)` with one array on PostgreSQL, `IN (?, …)` on SQLite.
        case anyOf([String])
    }

    private(set) var parts: [Part]

    public init(stringLiteral value: String) { parts = [.text(value)] }
    public init(stringInterpolation: Interpolation) { parts = stringInterpolation.parts }
    package init(parts: [Part]) { self.parts = parts }

    public struct Interpolation: StringInterpolationProtocol {
        package var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }
        public mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }
        public mutating func appendInterpolation(_ value: some SQLBindable) { parts.append(.bind(value.sqlValue)) }
        public mutating func appendInterpolation(raw text: String) { parts.append(.text(text)) }
        public mutating func appendInterpolation(_ fragment: SQL) { parts += fragment.parts }
        /// Membership in `values`: `column \(anyOf: ids)`. The list must not be empty.
        public mutating func appendInterpolation(anyOf values: [String]) { parts.append(.anyOf(values)) }
    }

    /// The values, in the order their placeholders appear in `text(for: dialect)`.
    public func binds(for dialect: SQLDialect) -> [SQLValue] {
        parts.flatMap { part -> [SQLValue] in
            switch part {
            case .text: []
            case .bind(let value): [value]
            case .anyOf(let values): dialect == .sqlite ? values.map(SQLValue.text) : [.textArray(values)]
            }
        }
    }

    /// The text with `?` (SQLite) or `$1…$n` (PostgreSQL) for the values.
    public func text(for dialect: SQLDialect) -> String {
        var text = ""
        var count = 0
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .bind:
                count += 1
                text += dialect == .sqlite ? "?" : "$\(count)"
            case .anyOf(let values):
                if dialect == .sqlite {
                    text += "IN (" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")"
                } else {
                    count += 1
                    text += "= ANY($\(count))"
                }
            }
        }
        return text
    }

    /// Fragments joined with `separator` (conditions with " AND ", values with ", ").
    public static func joined(_ fragments: [SQL], separator: String) -> SQL {
        var parts: [Part] = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { parts.append(.text(separator)) }
            parts += fragment.parts
        }
        return SQL(parts: parts)
    }

    public static func + (lhs: SQL, rhs: SQL) -> SQL { SQL(parts: lhs.parts + rhs.parts) }

    /// `WHERE` and the conditions joined with `AND`; nothing when there are none.
    public static func `where`(_ conditions: [SQL]) -> SQL {
        conditions.isEmpty ? "" : "WHERE " + joined(conditions, separator: " AND ")
    }
}

extension SQLDialect {
    /// `column` ordered by its bytes, as SQLite orders text: PostgreSQL's default collation
    /// follows the locale, so both databases list rows in the same order only with "C".
    public func byteOrdered(_ column: String) -> String {
        self == .postgresql ? "\(column) COLLATE \"C\"" : column
    }
}

extension SQLDialect {
    /// Locks the rows a `SELECT` reads until the transaction ends (PostgreSQL); SQLite's one
    /// writer already holds the database.
    public var forUpdate: String { self == .postgresql ? " FOR UPDATE" : "" }
    /// The larger of two values: `GREATEST` on PostgreSQL, the two-argument `MAX` on SQLite.
    public var greatest: String { self == .postgresql ? "GREATEST" : "MAX" }
}
