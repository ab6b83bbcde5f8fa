import AttendanceRules

/// An HTTP refusal (RFC 9457): a status, a title and a detail. The console renders it as a page;
/// AttendanceHTTP writes it as the contract's problem+json. `init(_:)` is the one place a core
/// `DomainError` gets its status.
public struct Problem: Error, Hashable, Sendable {
    public var status: Int
    public var title: String
    public var detail: String
    /// Seconds to wait before trying again (`Retry-After`), for a 429.
    public var retryAfterSeconds: Int?

    public init(_ status: Int, _ title: String, _ detail: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.title = title
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
    }

    public init(_ error: DomainError) {
        self.init(Self.status(of: error.kind), error.title, error.detail, retryAfterSeconds: error.retryAfterSeconds)
    }

    public static func status(of kind: DomainError.Kind) -> Int {
        switch kind {
        case .invalid: 400
        case .unauthenticated: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .gone: 410
        case .tooLarge: 413
        case .unprocessable: 422
        case .throttled: 429
        }
    }

    /// A console page or action the viewer's role does not allow.
    static func forbidden(_ what: String) -> Problem { Problem(403, "Not allowed", what) }
}
