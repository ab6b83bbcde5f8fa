import AttendanceModels
import Foundation

/// An RFC 9457 answer: which field, which value, what was expected. AttendanceHTTP's
/// `ContractAnswers` writes it as the contract's `Problem` (application/problem+json).
public struct Problem: Error, Hashable, Sendable {
    public var status: Int
    public var title: String
    public var detail: String

    public init(_ status: Int, _ title: String, _ detail: String) {
        self.status = status
        self.title = title
        self.detail = detail
    }

    public static func field(_ field: String, _ value: String?, expected: String, status: Int = 400) -> Problem {
        Problem(status, status == 422 ? "Unprocessable event" : "Invalid request",
                "'\(field)' is \(value.map { "'\($0)'" } ?? "missing"); expected \(expected)")
    }
}
