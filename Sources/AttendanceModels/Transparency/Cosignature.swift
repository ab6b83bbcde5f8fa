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

    /// `time` as the line carries it: 8 bytes, big-endian.
    static func bytes(_ time: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: time >> (56 - 8 * $0)) }
    }
}

/// A witness's key: it cosigns checkpoints (`attendance witness`). A note key of the cosignature's
/// type.
public struct Cosigner: Sendable {
    let signer: NoteSigner

    public var name: String { signer.name }
    public var keyID: [UInt8] { signer.keyID }
    /// The form kept in the witness's key file (secret): `PRIVATE+KEY+<name>+<id>+<base64(0x04 ‖ seed)>`.
    public var encoded: String { signer.encoded }
    public var verifier: CosignatureVerifier { CosignatureVerifier(key: signer.verifier) }

    public init(name: String, key: Curve25519.Signing.PrivateKey) throws {
        signer = try NoteSigner(name: name, key: key, type: Cosignature.type)
    }

    public static func generate(name: String) throws -> Cosigner {
        try Cosigner(name: name, key: Curve25519.Signing.PrivateKey())
    }

    public init(encoded: String) throws {
        signer = try NoteSigner(encoded: encoded, type: Cosignature.type)
    }

    /// `note` (a signed checkpoint) with this witness's cosignature at `time` added.
    public func cosign(_ note: String, time: UInt64) throws -> String {
        let parsed = try SignedNote.parse(note)
        return note
            + (try signer.line(
                signing: Data(Cosignature.message(parsed.text, time: time).utf8), prefix: Cosignature.bytes(time)))
    }
}

/// A witness's public key, as the server (`--witness-key`) and anyone checking its cosignatures hold it.
public struct CosignatureVerifier: Sendable, Equatable {
    let key: NoteVerifier

    public var name: String { key.name }
    public var keyID: [UInt8] { key.keyID }
    /// `<name>+<key id in hex>+<base64(0x04 ‖ public key)>`.
    public var encoded: String { key.encoded }

    init(key: NoteVerifier) { self.key = key }

    public init(encoded: String) throws {
        key = try NoteVerifier(encoded: encoded, type: Cosignature.type)
    }

    /// This witness's valid cosignature in `parsed`: its time and its signature line.
    public func cosignature(in parsed: SignedNote.Parsed) -> (time: UInt64, line: String)? {
        var time: UInt64 = 0
        let found = key.signature(in: parsed, prefixLength: 8) { prefix in
            time = prefix.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return time <= UInt64(Int64.max) ? Data(Cosignature.message(parsed.text, time: time).utf8) : nil
        }
        return found.map { (time, "\u{2014} \($0.name) " + Data($0.keyID + $0.bytes).base64EncodedString()) }
    }

    /// The time of this witness's valid cosignature on `note`; throws when it has none.
    public func time(in note: String) throws -> UInt64 {
        guard let found = cosignature(in: try SignedNote.parse(note)) else { throw SignedNote.Problem.unsigned(name) }
        return found.time
    }
}
