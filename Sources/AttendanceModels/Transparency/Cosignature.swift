import Crypto
import Foundation

/// A witness's cosignature (C2SP tlog-cosignature, Ed25519, `cosignature/v1`): its statement that at
/// `time` the checkpoint was the largest consistent tree it had seen of the log. A note signature
/// line `— <witness name> base64(key id ‖ time as 8 bytes big-endian ‖ signature)` whose signature
/// covers `cosignature/v1\ntime <time>\n` followed by the checkpoint's text. Key ids use the
/// signature type 0x04; keys are written as note keys are, with 0x04 as their type byte.
public enum Cosignature {
    static let type: UInt8 = 0x04

    /// What a cosigner signs for `text` (a checkpoint's text, ending in a newline) at `time`.
    public static func message(_ text: String, time: UInt64) -> String {
        "cosignature/v1\ntime \(time)\n" + text
    }
}

/// A witness's key: it cosigns checkpoints (`attendance witness`).
public struct Cosigner: Sendable {
    public let name: String
    let key: Curve25519.Signing.PrivateKey

    public init(name: String, key: Curve25519.Signing.PrivateKey) throws {
        guard SignedNote.isValidName(name) else { throw SignedNote.Problem.badKey("the name \"\(name)\"") }
        self.name = name
        self.key = key
    }

    public static func generate(name: String) throws -> Cosigner {
        try Cosigner(name: name, key: Curve25519.Signing.PrivateKey())
    }

    /// Reads `PRIVATE+KEY+<name>+<id>+<base64(0x04 ‖ seed)>`.
    public init(encoded: String) throws {
        let (name, raw) = try SignedNote.privateKey(encoded, type: Cosignature.type)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw SignedNote.Problem.badKey("the key is not a 32-byte Ed25519 seed")
        }
        try self.init(name: name.name, key: key)
        try SignedNote.checkKeyID(name.id, keyID)
    }

    public var keyID: [UInt8] {
        SignedNote.keyID(name: name, type: Cosignature.type, publicKey: Array(key.publicKey.rawRepresentation))
    }

    /// The form kept in the witness's key file (secret).
    public var encoded: String {
        "PRIVATE+KEY+\(name)+\(NoteSigner.hex(keyID))+"
            + Data([Cosignature.type] + Array(key.rawRepresentation)).base64EncodedString()
    }

    public var verifier: CosignatureVerifier {
        CosignatureVerifier(name: name, keyID: keyID, key: key.publicKey)
    }

    /// `note` (a signed checkpoint) with this witness's cosignature at `time` added.
    public func cosign(_ note: String, time: UInt64) throws -> String {
        let parsed = try SignedNote.parse(note)
        let signature = try key.signature(for: Data(Cosignature.message(parsed.text, time: time).utf8))
        var stamp = time.bigEndian
        let bytes = keyID + withUnsafeBytes(of: &stamp) { Array($0) } + Array(signature)
        return note + "\u{2014} \(name) " + Data(bytes).base64EncodedString() + "\n"
    }
}

/// A witness's public key, as the server (`--witness-key`) and anyone checking its cosignatures hold it.
public struct CosignatureVerifier: Sendable, Equatable {
    public let name: String
    public let keyID: [UInt8]
    let key: Curve25519.Signing.PublicKey

    init(name: String, keyID: [UInt8], key: Curve25519.Signing.PublicKey) {
        self.name = name
        self.keyID = keyID
        self.key = key
    }

    public static func == (lhs: CosignatureVerifier, rhs: CosignatureVerifier) -> Bool {
        lhs.name == rhs.name && lhs.key.rawRepresentation == rhs.key.rawRepresentation
    }

    /// Reads `<name>+<key id in hex>+<base64(0x04 ‖ public key)>`.
    public init(encoded: String) throws {
        let (name, raw) = try SignedNote.publicKey(encoded, type: Cosignature.type)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw SignedNote.Problem.badKey("the key is not a 32-byte Ed25519 key")
        }
        let id = SignedNote.keyID(name: name.name, type: Cosignature.type, publicKey: Array(key.rawRepresentation))
        try SignedNote.checkKeyID(name.id, id)
        self.init(name: name.name, keyID: id, key: key)
    }

    public var encoded: String {
        "\(name)+\(NoteSigner.hex(keyID))+"
            + Data([Cosignature.type] + Array(key.rawRepresentation)).base64EncodedString()
    }

    /// The time of this witness's valid cosignature on `note`; throws when it has none.
    public func time(in note: String) throws -> UInt64 {
        let parsed = try SignedNote.parse(note)
        for signature in parsed.signatures where signature.name == name && signature.keyID == keyID {
            guard signature.bytes.count == 8 + 64 else { continue }
            let time = signature.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let message = Data(Cosignature.message(parsed.text, time: time).utf8)
            if time <= UInt64(Int64.max), key.isValidSignature(Data(signature.bytes.dropFirst(8)), for: message) {
                return time
            }
        }
        throw SignedNote.Problem.unsigned(name)
    }
}
