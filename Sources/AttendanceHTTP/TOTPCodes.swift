import AttendanceRules
import AttendanceServer
import Foundation
import HummingbirdOTP

/// The second factor's codes from HummingbirdOTP (RFC 6238, HMAC-SHA1, six digits, 30 s).
public struct TOTPCodes: OneTimeCodes {
    public init() {}

    public func code(secret: String, at time: Date) -> Int { TOTP(secret: secret).compute(date: time) }

    public func authenticatorURL(secret: String, label: String, issuer: String) -> String {
        TOTP(secret: secret).createAuthenticatorURL(label: label, issuer: issuer)
    }
}
