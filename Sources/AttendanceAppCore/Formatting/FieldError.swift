import AttendanceModels
import Foundation

/// A form field the employee must fix, worded for the screen: which field, what was typed,
/// what is expected.
public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: LocalizedText
    public var value: String
    public var expected: LocalizedText

    public init(field: LocalizedText, value: String, expected: LocalizedText) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    /// "Reason 'x': expected why the record is wrong, 3 to 500 characters."
    public var text: LocalizedText {
        LocalizedText("%@ '%@': expected %@.", .text(field), .verbatim(value), .text(expected))
    }

    public var description: String { text.english }
}

/// Every field of a form that needs fixing, in the form's order.
public struct FieldErrors: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
    public var fields: [LocalizedText] { errors.map(\.field) }
    /// One line per field, in the employee's language.
    public func text(_ format: DisplayFormat) -> String {
        errors.map { format.string($0.text) }.joined(separator: "\n")
    }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
