import Crypto

/// SHA-256 (FIPS 180-4), used to derive stable session and idempotency keys and the ledger's
/// hashes. The digest is swift-crypto's (BoringSSL on Linux, CryptoKit on Apple platforms); this
/// is the package's one spelling of it, with the hexadecimal form the keys and the ledger store.
/// Checked against the FIPS test vectors in `SHA256Tests`.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let digest =
            bytes.withContiguousStorageIfAvailable { Crypto.SHA256.hash(data: UnsafeRawBufferPointer($0)) }
            ?? Crypto.SHA256.hash(data: Array(bytes))
        return Array(digest)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The lowercase hexadecimal digest of a UTF-8 string.
    public static func hex(_ string: String) -> String {
        var string = string
        return string.withUTF8 { hex(bytes: $0) }
    }

    /// The lowercase hexadecimal digest of `bytes` (a JSON payload as sent, say).
    public static func hex<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digest = self.digest(bytes)
        return String(unsafeUninitializedCapacity: 64) { text in
            var index = 0
            for byte in digest {
                text[index] = hexDigits[Int(byte >> 4)]
                text[index + 1] = hexDigits[Int(byte & 0xf)]
                index += 2
            }
            return 64
        }
    }
}
