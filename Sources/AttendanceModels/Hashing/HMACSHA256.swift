import Crypto

/// HMAC-SHA256 (RFC 2104) from swift-crypto, so the beacon challenge–response is checked the same
/// way on Linux (tests, tools) as on iOS (where swift-crypto is CryptoKit). Checked against the
/// RFC 4231 vectors in `ScannerBudgetChallengeTests`.
public enum HMACSHA256 {
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        Array(HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    /// Compares in time independent of where the first difference is.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
