import AttendanceModels
import Foundation

/// Secrets (admin token, device tokens, enrollment codes) are random, shown once, and stored only
/// as SHA-256 hashes: a copy of the database does not hand out working tokens. New ones come from
/// `ServerEnvironment` (its randomness).
public enum Tokens {
    public static func hash(_ secret: String) -> String { SHA256.hex("attendance-secret|" + secret) }

    /// Codes are compared case-insensitively and without the dash or spaces a person may type.
    public static func normalizeCode(_ code: String) -> String {
        code.uppercased().filter { $0.isLetter || $0.isNumber }
    }
}
