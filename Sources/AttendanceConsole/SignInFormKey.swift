import AttendanceModels
import AttendanceServer
import Foundation
import Synchronization

/// The sign-in form's token, signed: `random.mac`, the mac an HMAC-SHA256 of the random part with a
/// key every server on the database shares (`sharedSecret`). A cookie and a field that merely
/// agree are not enough (another site able to set both, a cookie tossed from a sibling domain): the
/// token must be one a server of this deployment made.
final class SignInFormKey: Sendable {
    private let key = Mutex<[UInt8]?>(nil)

    /// The shared key, read from the database once.
    func key(_ services: ConsoleServices, candidate: @autoclosure () -> String) async throws -> [UInt8] {
        if let known = key.withLock({ $0 }) { return known }
        let secret = Array(
            try await services.repository.sharedSecret(name: "console-sign-in", candidate: candidate()).utf8)
        key.withLock { $0 = secret }
        return secret
    }

    static func token(random: String, key: [UInt8]) -> String { random + "." + mac(random, key) }

    /// The cookie and the field agree, and the token is signed with `key`.
    static func verifies(field: String?, cookie: String?, key: [UInt8]) -> Bool {
        guard let field, let cookie, ConsoleSecurity.csrfMatches(field, cookie) else { return false }
        let parts = field.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return false }
        return ConsoleSecurity.csrfMatches(parts[1], mac(parts[0], key))
    }

    private static func mac(_ random: String, _ key: [UInt8]) -> String {
        String(Data(HMACSHA256.authenticationCode(key: key, message: Array(random.utf8))).base64URLEncoded.prefix(32))
    }
}
