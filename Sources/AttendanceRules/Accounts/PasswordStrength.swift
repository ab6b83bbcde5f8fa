import AttendanceModels
import Foundation

/// Whether a new password is strong enough, and if not, why (the refusal names the rule). Pure:
/// the list of common passwords is given (`AccountService` loads a bundled one).
public struct PasswordStrength: Sendable {
    /// Lowercased common passwords.
    private let common: Set<String>

    public init(common: Set<String>) {
        self.common = common
    }

    /// Refuses a password that is too short or long for bcrypt, made of a few characters repeated
    /// (`aaaaaaaaaaaa`), a run such as `123456789012` or `abcdefghijkl`, a common password (with
    /// digits or symbols added at the end too: `password123456`), or one that holds the account's
    /// e-mail name.
    public func check(_ password: String, email: String?) throws {
        try AccountRules.password(password)
        func refuse(_ why: String) -> DomainError {
            DomainError.field("password", why, expected: "a password that is hard to guess (\(Self.advice))")
        }
        let characters = Array(password)
        if Set(characters).count < 5 {
            throw refuse("made of \(Set(characters).count) different characters")
        }
        if Self.isRun(password) { throw refuse("a run of neighbouring characters") }
        let lowered = password.lowercased()
        let stem = String(lowered.reversed().drop { !$0.isLetter }.reversed())
        if common.contains(lowered) || (stem.count >= 4 && common.contains(stem)) {
            throw refuse("one of the 30,000 most common passwords")
        }
        if let name = email?.split(separator: "@").first.map({ $0.lowercased() }), name.count >= 4,
            lowered.contains(name)
        {
            throw refuse("containing the account's e-mail name")
        }
    }

    static let advice = "at least 12 characters; a few unrelated words work well"

    /// Most neighbours one apart, up or down (`123456789012`, `zyxwvutsrqpo`).
    static func isRun(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        guard scalars.count > 1 else { return false }
        let steps = zip(scalars, scalars.dropFirst()).filter {
            abs(Int($0) - Int($1)) == 1 || ($0 == 0x39 && $1 == 0x30)
        }
        return steps.count * 5 >= (scalars.count - 1) * 4
    }
}
