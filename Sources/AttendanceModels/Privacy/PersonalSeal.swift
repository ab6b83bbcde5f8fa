import Crypto
import Foundation

/// Personal data sealed with its subject's own key (crypto-shredding, docs/LEDGER.md "Erasure"):
/// AES-256-GCM with a fresh 96-bit nonce, the subject's id bound in as associated data, so a sealed
/// text moved to another subject does not open. Deleting the subject's key erases every text it
/// sealed: what stays is random-looking bytes that no guess of the plaintext can be checked against.
///
/// A sealed text: `sealed-v1.<subject, base64url>.<nonce ‖ ciphertext ‖ tag, base64>`.
public enum PersonalSeal {
    public static let prefix = "sealed-v1."

    /// A new 256-bit key for one subject.
    public static func newKey() -> [UInt8] {
        SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// `plain` sealed for `subject` under `key`.
    public static func seal(_ plain: Data, subject: String, key: [UInt8]) throws -> String {
        let box = try AES.GCM.seal(
            plain, using: SymmetricKey(data: key), authenticating: associatedData(subject))
        guard let combined = box.combined else { throw PersonalSealError.malformed("the sealed box has no nonce") }
        return prefix + base64URL(Data(subject.utf8)) + "." + combined.base64EncodedString()
    }

    /// Whether `stored` is a sealed text (rows written before sealing hold their personal data as is).
    public static func isSealed(_ stored: Data) -> Bool {
        stored.starts(with: Data(prefix.utf8))
    }

    /// The subject a sealed text belongs to, or nil when `stored` is not one.
    public static func subject(of stored: Data) -> String? {
        parts(of: stored)?.subject
    }

    /// The plaintext of `stored`, sealed for its subject under `key`.
    public static func open(_ stored: Data, key: [UInt8]) throws -> Data {
        guard let (subject, box) = parts(of: stored) else {
            throw PersonalSealError.malformed("not a sealed text (\(prefix)<subject>.<box>)")
        }
        do {
            let sealed = try AES.GCM.SealedBox(combined: box)
            return try AES.GCM.open(sealed, using: SymmetricKey(data: key), authenticating: associatedData(subject))
        } catch {
            throw PersonalSealError.doesNotOpen(subject: subject)
        }
    }

    private static func parts(of stored: Data) -> (subject: String, box: Data)? {
        guard isSealed(stored) else { return nil }
        let fields = stored.dropFirst(prefix.utf8.count).split(
            separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard fields.count == 2, let subject = fromBase64URL(fields[0]),
            let box = Data(base64Encoded: Data(fields[1]))
        else { return nil }
        return (String(decoding: subject, as: UTF8.self), box)
    }

    private static func associatedData(_ subject: String) -> Data { Data("ledger-personal-v1\n\(subject)".utf8) }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func fromBase64URL(_ field: Data.SubSequence) -> Data? {
        var text = String(decoding: field, as: UTF8.self).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}

public enum PersonalSealError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed(String)
    /// The key is not the one the text was sealed with, or the text was changed.
    case doesNotOpen(subject: String)

    public var description: String {
        switch self {
        case .malformed(let why): "a sealed personal text is malformed: \(why)"
        case .doesNotOpen(let subject): "a sealed personal text of '\(subject)' does not open with its key"
        }
    }
}
