import AttendanceModels
import AttendanceRules
import Foundation

/// The file holding the key that signs the ledger's checkpoints, kept apart from the database (a
/// copy of the database can't re-sign a rewritten history). One line, Go's signer-key form
/// (`PRIVATE+KEY+<name>+<id>+<key>`); created on first start, readable by its owner only. Servers
/// on one database share the file.
public enum LedgerKeyFile {
    public struct Loaded: Sendable {
        public var signer: NoteSigner
        /// Whether this start created the file.
        public var created: Bool
    }

    /// Reads the key at `path`, or creates one named `name` there when no file exists.
    public static func loadOrCreate(path: String, name: String) throws -> Loaded {
        let (signer, created) = try SecretKeyFile.loadOrCreate(
            path: path, option: "--ledger-key",
            make: {
                do {
                    let signer = try NoteSigner.generate(name: name)
                    return (signer, signer.encoded)
                } catch {
                    throw DomainError.field(
                        "--ledger-name", name,
                        expected: "a key name without spaces or '+' (e.g. attendance.example.com/ledger)")
                }
            },
            parse: NoteSigner.init(encoded:))
        return Loaded(signer: signer, created: created)
    }

    public static func load(path: String) throws -> NoteSigner {
        try SecretKeyFile.load(path: path, option: "--ledger-key", parse: NoteSigner.init(encoded:))
    }
}

/// A secret key in a file of its own (mode 0600): the ledger's signing key, a witness's key.
public enum SecretKeyFile {
    /// The key at `path` read by `parse`, or the one `make` gives (the key and its encoded form)
    /// written there when no file exists; `option` names the flag in errors.
    public static func loadOrCreate<Key>(
        path: String, option: String, make: () throws -> (Key, String), parse: (String) throws -> Key
    ) throws -> (key: Key, created: Bool) {
        if FileManager.default.fileExists(atPath: path) {
            return (try load(path: path, option: option, parse: parse), false)
        }
        let (key, encoded) = try make()
        // Written in full under a name of its own, then linked into place: a process starting beside
        // this one reads the whole key or none, and if both create one, the first link wins.
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw cantCreate(path, option: option) }
        defer { unlink(temporary) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data((encoded + "\n").utf8))
        try handle.synchronize()
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return (try load(path: path, option: option, parse: parse), false) }
            throw cantCreate(path, option: option)
        }
        return (key, true)
    }

    /// The refusal of a key file that can't be made, with the system's reason (`errno` now).
    private static func cantCreate(_ path: String, option: String) -> DomainError {
        DomainError.field(
            option, path, expected: "a file this process can create (\(String(cString: strerror(errno))))")
    }

    public static func load<Key>(path: String, option: String, parse: (String) throws -> Key) throws -> Key {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DomainError.field(option, path, expected: "a readable key file (\(error.localizedDescription))")
        }
        do {
            return try parse(text)
        } catch {
            throw DomainError.field(option, path, expected: "PRIVATE+KEY+<name>+<key id>+<key>: \(error)")
        }
    }
}
