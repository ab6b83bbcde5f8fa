import Foundation

/// A form field the employee must fix, worded for the screen: which field, what was typed,
/// what is expected.
public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var value: String
    public var expected: String

    public init(field: String, value: String, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(field) '\(value)': expected \(expected)." }
}

/// Every field of a form that needs fixing, in the form's order.
public struct FieldErrors: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
    public var fields: [String] { errors.map(\.field) }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
