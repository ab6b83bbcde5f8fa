import AttendanceModels
import Foundation

/// Secrets (admin token, device tokens, enrollment codes) are random, shown once, and stored only
/// as SHA-256 hashes: a copy of the database does not hand out working tokens.
public enum Tokens {
    /// 32 random bytes as base64url (43 characters), from the system's CSPRNG.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncoded
    }

    /// An enrollment code an employee can type: 10 characters from an alphabet without look-alikes
    /// (no 0/O, 1/I/L), grouped as XXXXX-XXXXX; about 49 bits, and each code works once and expires.
    public static func newEnrollmentCode() -> String {
        let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(characters[0..<5]) + "-" + String(characters[5..<10])
    }

    public static func hash(_ secret: String) -> String { SHA256.hex("attendance-secret|" + secret) }

    /// Codes are compared case-insensitively and without the dash or spaces a person may type.
    public static func normalizeCode(_ code: String) -> String {
        code.uppercased().filter { $0.isLetter || $0.isNumber }
    }
}
