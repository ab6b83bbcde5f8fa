import Foundation

/// A C2SP checkpoint (https://c2sp.org/tlog-checkpoint): the note text `<origin>\n<size>\n<base64
/// root hash>\n`, signed as a note by the log's key. It commits the log to its first `size` leaves.
public struct Checkpoint: Sendable, Equatable {
    public var origin: String
    public var size: Int64
    public var rootHash: MerkleTree.Hash

    public init(origin: String, size: Int64, rootHash: MerkleTree.Hash) {
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
    }

    /// The note text this checkpoint signs.
    public var text: String { "\(origin)\n\(size)\n\(Data(rootHash).base64EncodedString())\n" }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case wrongOrigin(expected: String, found: String)

        public var description: String {
            switch self {
            case .malformed(let why): "not a checkpoint: \(why)"
            case .wrongOrigin(let expected, let found): "the checkpoint is for \"\(found)\", not \"\(expected)\""
            }
        }
    }

    /// Reads a checkpoint's text (extension lines after the third are allowed and ignored).
    public init(text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard text.hasSuffix("\n"), lines.count >= 4 else { throw Problem.malformed("fewer than three lines") }
        guard !lines[0].isEmpty else { throw Problem.malformed("the origin line is empty") }
        guard let size = Int64(lines[1]), size >= 0, String(size) == lines[1] else {
            throw Problem.malformed("the size \"\(lines[1].prefix(30))\" is not a non-negative decimal")
        }
        guard let root = Data(base64Encoded: String(lines[2])), root.count == 32 else {
            throw Problem.malformed("the root hash \"\(lines[2].prefix(60))\" is not base64 of 32 bytes")
        }
        self.init(origin: String(lines[0]), size: size, rootHash: Array(root))
    }

    /// The checkpoint in a signed note, once `verifier`'s signature is checked.
    public static func open(_ note: String, verifier: NoteVerifier, origin: String? = nil) throws -> Checkpoint {
        let checkpoint = try Checkpoint(text: verifier.open(note))
        if let origin, checkpoint.origin != origin {
            throw Problem.wrongOrigin(expected: origin, found: checkpoint.origin)
        }
        return checkpoint
    }
}
