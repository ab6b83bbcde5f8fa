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
        if FileManager.default.fileExists(atPath: path) {
            return Loaded(signer: try load(path: path), created: false)
        }
        let signer: NoteSigner
        do {
            signer = try NoteSigner.generate(name: name)
        } catch {
            throw DomainError.field(
                "--ledger-name", name, expected: "a key name without spaces or '+' (e.g. attendance.example.com/ledger)"
            )
        }
        // Written in full under a name of its own, then linked into place: a server starting beside
        // this one reads the whole key or none, and if both create one, the first link wins.
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw cantCreate(path) }
        defer { unlink(temporary) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data((signer.encoded + "\n").utf8))
        try handle.synchronize()
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return Loaded(signer: try load(path: path), created: false) }
            throw cantCreate(path)
        }
        return Loaded(signer: signer, created: true)
    }

    /// The refusal of a key file that can't be made, with the system's reason (`errno` now).
    private static func cantCreate(_ path: String) -> DomainError {
        DomainError.field(
            "--ledger-key", path, expected: "a file this server can create (\(String(cString: strerror(errno))))")
    }

    public static func load(path: String) throws -> NoteSigner {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DomainError.field(
                "--ledger-key", path, expected: "a readable key file (\(error.localizedDescription))")
        }
        do {
            return try NoteSigner(encoded: text)
        } catch {
            throw DomainError.field("--ledger-key", path, expected: "PRIVATE+KEY+<name>+<key id>+<key>: \(error)")
        }
    }
}
