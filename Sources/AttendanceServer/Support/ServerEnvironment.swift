import AttendanceModels
import Foundation

/// What the server takes from the world: the time, and randomness for secrets and ids. Made once
/// where a server is composed (`AttendanceHTTPServer.application`, the CLI's commands) and passed
/// down to every service, so an audit row's time and a new id never depend on the entry point.
/// There is no default: a service that is not handed an environment does not compile.
public struct ServerEnvironment: Sendable {
    /// The time now.
    public var now: @Sendable () -> Date
    /// `count` random bytes, from a cryptographically secure source in the live environment:
    /// tokens and enrollment codes are secrets.
    public var randomBytes: @Sendable (_ count: Int) -> [UInt8]

    public init(now: @escaping @Sendable () -> Date, randomBytes: @escaping @Sendable (_ count: Int) -> [UInt8]) {
        self.now = now
        self.randomBytes = randomBytes
    }

    /// The wall clock and the system's CSPRNG: the one live server clock.
    public static let live = ServerEnvironment(now: { Date() }, randomBytes: systemRandomBytes)

    /// The live randomness with another clock (tests, the simulator's world time).
    public static func clock(_ now: @escaping @Sendable () -> Date) -> ServerEnvironment {
        ServerEnvironment(now: now, randomBytes: systemRandomBytes)
    }

    @Sendable private static func systemRandomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A secret (admin, device, API and session tokens): 32 random bytes as base64url (43 characters).
    public func newToken() -> String { Data(randomBytes(32)).base64URLEncoded }

    /// An id for a new record: `prefix` and `length` characters of a new token (lowercased where
    /// the id appears in URLs people type or read).
    public func newId<Tag>(_ prefix: String, length: Int, lowercased: Bool = true) -> Identifier<Tag> {
        let random = newToken().prefix(length)
        return Identifier(prefix + (lowercased ? random.lowercased() : String(random)))
    }

    /// A new random password for a created account (printed once), 24 characters of base64url.
    public func newPassword() -> String { String(newToken().prefix(24)) }

    /// An enrollment code an employee can type: 10 characters from an alphabet without look-alikes
    /// (no 0/O, 1/I/L), grouped as XXXXX-XXXXX; about 49 bits, and each code works once and expires.
    public func newEnrollmentCode() -> String {
        Self.enrollmentCode { _ in randomBytes(16) }
    }

    /// The code `bytes` give: called with 0, 1, … until it has drawn enough (random bytes for a new
    /// code; an HMAC's blocks for one derived from a retry's key).
    public static func enrollmentCode(_ bytes: (Int) -> [UInt8]) -> String {
        let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
        // Rejection sampling: 248 is the largest multiple of 31 not above 256, so each letter is
        // equally likely.
        var characters: [Character] = []
        var draw = 0
        while characters.count < 10 {
            for byte in bytes(draw) where byte < 248 && characters.count < 10 {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
            draw += 1
        }
        return String(characters[0..<5]) + "-" + String(characters[5..<10])
    }
}
