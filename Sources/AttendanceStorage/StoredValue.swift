import AttendanceModels
import Foundation

/// A stored value this release cannot read (a kind, role or state it does not know, a malformed
/// row): an error that names the table, the row, the column and the value, never a default.
public struct StoredValueError: Error, Hashable, Sendable, CustomStringConvertible {
    public var table: String
    public var row: String
    public var column: String
    public var value: String
    public var expected: String

    public var description: String {
        "\(table) row \(row): \(column) is '\(value.prefix(200))', expected \(expected)"
    }
}

/// Decodes the enumerations the server stores as text, strictly.
package enum StoredValue {
    package static func decode<Value: RawRepresentable>(
        _ text: String, as _: Value.Type = Value.self, table: String, row: @autoclosure () -> String, column: String
    ) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            throw StoredValueError(
                table: table, row: row(), column: column, value: text, expected: "a \(Value.self) this release knows")
        }
        return value
    }

    /// Nil stays nil (the column is optional); a text that names nothing known is an error.
    package static func decode<Value: RawRepresentable>(
        _ text: String?, as _: Value.Type = Value.self, table: String, row: @autoclosure () -> String, column: String
    ) throws -> Value? where Value.RawValue == String {
        guard let text else { return nil }
        return try decode(text, as: Value.self, table: table, row: row(), column: column) as Value
    }
}
