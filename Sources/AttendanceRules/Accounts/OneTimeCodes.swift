import Foundation

/// Time-based one-time codes (RFC 6238: six digits, 30-second steps, HMAC-SHA1) for the console's
/// second factor. The core only asks for them: `AttendanceHTTP` fills this with a library's
/// implementation, so the core links no web framework.
public protocol OneTimeCodes: Sendable {
    /// The code an authenticator app holding `secret` shows at `time`.
    func code(secret: String, at time: Date) -> Int
    /// The `otpauth://` URL an authenticator app scans to hold `secret`.
    func authenticatorURL(secret: String, label: String, issuer: String) -> String
}
