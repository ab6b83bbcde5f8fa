import Foundation

/// A refusal from the server's core: what kind of refusal it is, a short title, and a detail that
/// names the field, the value and what was expected. The core knows no HTTP: the web layers choose
/// each kind's status (`Problem` in AttendanceConsole, which AttendanceHTTP writes as the
/// contract's problem+json).
public struct DomainError: Error, Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// The request is malformed: a field is missing, of the wrong form or out of range.
        case invalid
        /// The caller is not known: no credential, a wrong or revoked one, a missing second factor.
        case unauthenticated
        /// The caller is known and may not do this.
        case forbidden
        /// What the request names does not exist (or the caller may not know it exists).
        case notFound
        /// The request is well formed but the record's state refuses it (a duplicate, a lock).
        case conflict
        /// It existed once and is used up (an enrollment code).
        case gone
        /// More items than the limit allows.
        case tooLarge
        /// Well formed, but its content can't be applied (an unknown site, a time out of range).
        case unprocessable
        /// Too many attempts; wait.
        case throttled
    }

    public var kind: Kind
    public var title: String
    public var detail: String
    /// For `throttled`: how many seconds to wait before trying again (HTTP's `Retry-After`).
    public var retryAfterSeconds: Int?

    public init(_ kind: Kind, _ title: String, _ detail: String, retryAfterSeconds: Int? = nil) {
        self.kind = kind
        self.title = title
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// A field's refusal: "'field' is 'value'; expected …".
    public static func field(_ field: String, _ value: String?, expected: String, kind: Kind = .invalid)
        -> DomainError
    {
        DomainError(
            kind, kind == .unprocessable ? "Unprocessable event" : "Invalid request",
            "'\(field)' is \(value.map { "'\($0)'" } ?? "missing"); expected \(expected)")
    }
}
