import AttendanceModels
import Foundation

/// What an account's fields must be. Pure.
public enum AccountRules {
    /// bcrypt reads 72 bytes at most: a longer password would be silently cut, so it is refused.
    public static let passwordBytes = 12...72

    public static func email(_ text: String) throws -> String {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline || $0.asciiValue.map { $0 < 32 } == true })
        else { throw DomainError.field("email", text, expected: "an e-mail address like name@example.com") }
        return email
    }

    public static func password(_ text: String) throws {
        guard passwordBytes.contains(text.utf8.count) else {
            throw DomainError.field(
                "password", "\(text.utf8.count) bytes long",
                expected: "\(passwordBytes.lowerBound) to \(passwordBytes.upperBound) bytes")
        }
    }

    public static func role(_ text: String) throws -> Role {
        guard let role = Role(rawValue: text) else {
            throw DomainError.field("role", text, expected: Role.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return role
    }

    /// A manager needs at least one site; the other roles see every site and take none.
    public static func sites(_ sites: [SiteID], for role: Role) throws {
        if role.isSiteScoped, sites.isEmpty {
            throw DomainError.field("sites", "empty", expected: "at least one site id for a manager")
        }
        if !role.isSiteScoped, !sites.isEmpty {
            throw DomainError.field(
                "sites", sites.map(\.rawValue).joined(separator: ","),
                expected: "no sites for the \(role.rawValue) role (it sees every site)")
        }
    }

    /// A six-digit code from an authenticator app.
    public static func totpCode(_ text: String) throws -> Int {
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count == 6, digits.allSatisfy(\.isASCII), let code = Int(digits) else {
            throw DomainError.field("code", text, expected: "the 6-digit code from the authenticator app")
        }
        return code
    }
}
