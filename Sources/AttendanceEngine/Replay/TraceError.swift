/// A malformed trace row: where it is, what it held, what was expected.
public struct TraceError: Error, Hashable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: String
    public let value: String
    public let expected: String

    public init(line: Int, column: String, value: String, expected: String) {
        self.line = line
        self.column = column
        self.value = value
        self.expected = expected
    }

    public var description: String {
        "line \(line), column '\(column)': '\(value)' is not valid; expected \(expected)"
    }
}
