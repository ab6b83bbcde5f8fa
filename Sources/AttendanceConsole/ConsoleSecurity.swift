import Foundation
import HTTPTypes
import Hummingbird

/// The console's web security in one place: response headers, the session cookie and the CSRF
/// check (docs/CONSOLE.md, "Web security").
enum ConsoleSecurity {
    static let cookieName = "attendance_session"
    /// The sign-in form's own token (before there is a session to hold one).
    static let signInCookieName = "attendance_sign_in"

    /// No inline script or style, nothing from another origin, never framed.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static func secure(_ headers: inout HTTPFields) {
        headers[.consoleCSP] = contentSecurityPolicy
        headers[.consoleNoSniff] = "nosniff"
        headers[.consoleFrameOptions] = "DENY"
        headers[.consoleReferrerPolicy] = "same-origin"
        headers[.cacheControl] = "no-store"
    }

    /// The request came over https (directly, or through a proxy that says so).
    static func isHTTPS(_ request: Request) -> Bool {
        request.head.scheme == "https" || request.headers[.consoleForwardedProto]?.lowercased() == "https"
    }

    static func sessionCookie(_ token: String, maxAge: Int, secure: Bool) -> String {
        "\(cookieName)=\(token); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    static func clearedCookie(secure: Bool) -> String { sessionCookie("", maxAge: 0, secure: secure) }

    /// Lasts 30 minutes: a sign-in form left open longer is refused and shown again.
    static func signInCookie(_ token: String, secure: Bool) -> String {
        "\(signInCookieName)=\(token); Path=/console/sign-in; Max-Age=1800; HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    static func cookieToken(_ request: Request) -> String? {
        guard let value = request.cookies[cookieName]?.value, !value.isEmpty, value.count <= 64 else { return nil }
        return value
    }

    /// Constant-time comparison of the form's token with the session's.
    static func csrfMatches(_ sent: String?, _ expected: String) -> Bool {
        guard let sent, sent.utf8.count == expected.utf8.count else { return false }
        return zip(sent.utf8, expected.utf8).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPField.Name {
    static let consoleCSP = HTTPField.Name("Content-Security-Policy")!
    static let consoleNoSniff = HTTPField.Name("X-Content-Type-Options")!
    static let consoleFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let consoleReferrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let consoleForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
