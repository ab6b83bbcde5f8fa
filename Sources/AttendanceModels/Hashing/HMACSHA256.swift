import Foundation

/// HMAC-SHA256 (RFC 2104) over the package's SHA-256, so the beacon challenge–response is
/// checked the same way on Linux (tests, tools) as CryptoKit checks it on iOS.
public enum HMACSHA256 {
    static let blockSize = 64

    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }

    /// Compares in time independent of where the first difference is.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
