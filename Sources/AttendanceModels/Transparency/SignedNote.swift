import Crypto
import Foundation

/// C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 keys: a UTF-8 text ending in a
/// newline, a blank line, then one line per signature, `— <key name> <base64(key id ‖ signature)>`.
/// A key's id is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key); a verifier key is
/// written `<name>+<key id in hex>+<base64(0x01 ‖ public key)>`, and a signer key (the file the
/// server keeps) `PRIVATE+KEY+<name>+<key id in hex>+<base64(0x01 ‖ private seed)>`, as Go's
/// `golang.org/x/mod/sumdb/note` writes them, so tools other than ours read the same files.
public enum SignedNote {
    /// The type byte of an Ed25519 key.
    static let ed25519: UInt8 = 0x01

    /// A note's text and its signature lines, split.
    public struct Parsed: Sendable, Equatable {
        public var text: String
        public var signatures: [Signature]
    }

    public struct Signature: Sendable, Equatable {
        public var name: String
        public var keyID: [UInt8]
        public var bytes: [UInt8]
    }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case badKey(String)
        case unsigned(String)

        public var description: String {
            switch self {
            case .malformed(let why): "not a signed note: \(why)"
            case .badKey(let why): "not a note key: \(why)"
            case .unsigned(let name): "no valid signature by \(name)"
            }
        }
    }

    public static func keyID(name: String, type: UInt8, publicKey: [UInt8]) -> [UInt8] {
        Array(SHA256.digest(Array(name.utf8) + [0x0a, type] + publicKey).prefix(4))
    }

    public static func parse(_ note: String) throws -> Parsed {
        guard let split = note.range(of: "\n\n", options: .backwards) else {
            throw Problem.malformed("no blank line before the signatures")
        }
        let text = String(note[..<split.lowerBound]) + "\n"
        let block = note[split.upperBound...]
        guard block.hasSuffix("\n") else { throw Problem.malformed("the last signature line has no newline") }
        var signatures: [Signature] = []
        for line in block.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("\u{2014} ") else {
                throw Problem.malformed("a signature line must start with an em dash: \(line.prefix(40))")
            }
            let fields = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty, let bytes = Data(base64Encoded: String(fields[1])),
                bytes.count > 4
            else { throw Problem.malformed("a signature line is not `— name base64`: \(line.prefix(40))") }
            signatures.append(
                Signature(name: String(fields[0]), keyID: Array(bytes.prefix(4)), bytes: Array(bytes.dropFirst(4))))
        }
        guard !signatures.isEmpty else { throw Problem.malformed("no signature lines") }
        return Parsed(text: text, signatures: signatures)
    }

    /// The 32 key bytes of a key file's or verifier key's last field: base64 of `type` and them.
    static func ed25519Key(_ field: Substring, type: UInt8 = ed25519) -> Data? {
        guard let bytes = Data(base64Encoded: String(field)), bytes.count == 33, bytes.first == type else {
            return nil
        }
        return bytes.dropFirst()
    }

    /// The name, key id and seed of `PRIVATE+KEY+<name>+<id>+<base64(type ‖ seed)>`.
    static func privateKey(_ encoded: String, type: UInt8) throws -> (name: (name: String, id: Substring), seed: Data) {
        // Base64 holds '+' too: the key is what follows the fourth.
        let fields = encoded.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: "+", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == "PRIVATE", fields[1] == "KEY" else {
            throw Problem.badKey("expected PRIVATE+KEY+<name>+<key id>+<base64 key>")
        }
        guard let raw = ed25519Key(fields[4], type: type) else {
            throw Problem.badKey("the key is not base64 of 0x0\(type) and a 32-byte Ed25519 seed")
        }
        return ((String(fields[2]), fields[3]), raw)
    }

    /// The name, key id and key of `<name>+<id>+<base64(type ‖ public key)>`.
    static func publicKey(_ encoded: String, type: UInt8) throws -> (name: (name: String, id: Substring), key: Data) {
        let fields = encoded.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, isValidName(String(fields[0])) else {
            throw Problem.badKey("expected <name>+<key id>+<base64 key>")
        }
        guard let raw = ed25519Key(fields[2], type: type) else {
            throw Problem.badKey("the key is not base64 of 0x0\(type) and a 32-byte Ed25519 key")
        }
        return ((String(fields[0]), fields[1]), raw)
    }

    /// Refuses a key whose written id is not the one its name and key give.
    static func checkKeyID(_ written: Substring, _ id: [UInt8]) throws {
        guard written == NoteSigner.hex(id) else {
            throw Problem.badKey("the key id \(written) does not match the key (\(NoteSigner.hex(id)))")
        }
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("+") && !name.unicodeScalars.contains { $0.properties.isWhitespace }
    }
}

/// An Ed25519 key that signs notes (the server's checkpoint key; a witness's, with the
/// cosignature's type, `Cosigner`).
public struct NoteSigner: Sendable {
    public let name: String
    let key: Curve25519.Signing.PrivateKey
    /// The signature type its key id and encodings carry (0x01; 0x04 for a witness's).
    let type: UInt8

    public init(name: String, key: Curve25519.Signing.PrivateKey) throws {
        try self.init(name: name, key: key, type: SignedNote.ed25519)
    }

    init(name: String, key: Curve25519.Signing.PrivateKey, type: UInt8) throws {
        guard SignedNote.isValidName(name) else { throw SignedNote.Problem.badKey("the name \"\(name)\"") }
        self.name = name
        self.key = key
        self.type = type
    }

    /// A key made for this process alone (tests, and a server given none), named
    /// `attendance.invalid/ephemeral`: checkpoints it signs can't be checked by anyone outside.
    public static var ephemeral: NoteSigner {
        // The name is valid, so this can't throw.
        (try? generate(name: "attendance.invalid/ephemeral"))!
    }

    /// A new key named `name`.
    public static func generate(name: String) throws -> NoteSigner {
        try NoteSigner(name: name, key: Curve25519.Signing.PrivateKey())
    }

    /// Reads `PRIVATE+KEY+<name>+<id>+<base64(0x01 ‖ seed)>`.
    public init(encoded: String) throws {
        try self.init(encoded: encoded, type: SignedNote.ed25519)
    }

    init(encoded: String, type: UInt8) throws {
        let (name, raw) = try SignedNote.privateKey(encoded, type: type)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw SignedNote.Problem.badKey("the key is not base64 of 0x0\(type) and a 32-byte Ed25519 seed")
        }
        try self.init(name: name.name, key: key, type: type)
        try SignedNote.checkKeyID(name.id, keyID)
    }

    public var keyID: [UInt8] {
        SignedNote.keyID(name: name, type: type, publicKey: Array(key.publicKey.rawRepresentation))
    }

    /// The form kept in the key file (secret).
    public var encoded: String {
        "PRIVATE+KEY+\(name)+\(Self.hex(keyID))+" + Data([type] + Array(key.rawRepresentation)).base64EncodedString()
    }

    public var verifier: NoteVerifier {
        NoteVerifier(name: name, keyID: keyID, key: key.publicKey, type: type)
    }

    /// `text` (ending in a newline) with this key's signature line.
    public func sign(_ text: String) throws -> String {
        precondition(text.hasSuffix("\n"), "a note's text ends in a newline")
        return text + "\n" + (try line(signing: Data(text.utf8)))
    }

    /// A signature line over `message`: `— <name> base64(key id ‖ prefix ‖ signature)`.
    func line(signing message: Data, prefix: [UInt8] = []) throws -> String {
        let signature = try key.signature(for: message)
        return "\u{2014} \(name) " + Data(keyID + prefix + Array(signature)).base64EncodedString() + "\n"
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// An Ed25519 public key that checks notes: what an employee's phone, a witness or an auditor holds.
public struct NoteVerifier: Sendable, Equatable {
    public let name: String
    public let keyID: [UInt8]
    let key: Curve25519.Signing.PublicKey
    let type: UInt8

    init(name: String, keyID: [UInt8], key: Curve25519.Signing.PublicKey, type: UInt8) {
        self.name = name
        self.keyID = keyID
        self.key = key
        self.type = type
    }

    public static func == (lhs: NoteVerifier, rhs: NoteVerifier) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.key.rawRepresentation == rhs.key.rawRepresentation
    }

    /// Reads `<name>+<key id in hex>+<base64(0x01 ‖ public key)>`.
    public init(encoded: String) throws {
        try self.init(encoded: encoded, type: SignedNote.ed25519)
    }

    init(encoded: String, type: UInt8) throws {
        let (name, raw) = try SignedNote.publicKey(encoded, type: type)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw SignedNote.Problem.badKey("the key is not base64 of 0x0\(type) and a 32-byte Ed25519 key")
        }
        let id = SignedNote.keyID(name: name.name, type: type, publicKey: Array(key.rawRepresentation))
        try SignedNote.checkKeyID(name.id, id)
        self.init(name: name.name, keyID: id, key: key, type: type)
    }

    public var encoded: String {
        "\(name)+\(NoteSigner.hex(keyID))+" + Data([type] + Array(key.rawRepresentation)).base64EncodedString()
    }

    /// The note's text when this key signed it; throws otherwise.
    public func open(_ note: String) throws -> String {
        let parsed = try SignedNote.parse(note)
        guard signature(in: parsed, over: { _ in Data(parsed.text.utf8) }) != nil else {
            throw SignedNote.Problem.unsigned(name)
        }
        return parsed.text
    }

    /// This key's first valid signature line in `parsed`: its bytes after the key id. `message`
    /// gives what the signature covers from those bytes (`prefixLength` of them come first).
    func signature(
        in parsed: SignedNote.Parsed, prefixLength: Int = 0, over message: ([UInt8]) -> Data?
    ) -> SignedNote.Signature? {
        parsed.signatures.first { signature in
            guard signature.name == name, signature.keyID == keyID, signature.bytes.count == prefixLength + 64,
                let covered = message(Array(signature.bytes.prefix(prefixLength)))
            else { return false }
            return key.isValidSignature(Data(signature.bytes.dropFirst(prefixLength)), for: covered)
        }
    }
}
