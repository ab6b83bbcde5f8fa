import AttendanceModels
import Foundation
import Testing

/// Signed notes and checkpoints against the reference vectors of Go's `golang.org/x/mod/sumdb/note`
/// (its documentation's PeterNeumann key and note): our files and signatures are the formats other
/// transparency tools read.
@Suite struct SignedNoteTests {
    static let verifierKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    static let signerKey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
    static let text =
        "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
    static let signature =
        "\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"

    @Test func signsAsGoDoes() throws {
        let signer = try NoteSigner(encoded: Self.signerKey)
        #expect(signer.encoded == Self.signerKey)
        #expect(signer.verifier.encoded == Self.verifierKey)
        #expect(try signer.sign(Self.text) == Self.text + "\n" + Self.signature)
    }

    @Test func opensGoNotes() throws {
        let verifier = try NoteVerifier(encoded: Self.verifierKey)
        #expect(try verifier.open(Self.text + "\n" + Self.signature) == Self.text)
        // A changed text, another key of the same name, a missing signature block.
        #expect(throws: SignedNote.Problem.unsigned("PeterNeumann")) {
            try verifier.open(Self.text.replacingOccurrences(of: "problem,", with: "problem;") + "\n" + Self.signature)
        }
        let impostor = try NoteSigner.generate(name: "PeterNeumann")
        #expect(throws: SignedNote.Problem.unsigned("PeterNeumann")) {
            try verifier.open(impostor.sign(Self.text))
        }
        #expect(throws: SignedNote.Problem.self) { try verifier.open(Self.text) }
    }

    @Test func refusesMangledKeys() {
        for key in [
            "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  // wrong id
            "PeterNeumann+c74f20a3+AhpcZ2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  // not type 1
            "PeterNeumann+c74f20a3",
            "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        ] {
            #expect(throws: SignedNote.Problem.self, "\(key)") { try NoteVerifier(encoded: key) }
        }
        #expect(throws: SignedNote.Problem.self) { try NoteSigner(encoded: "PRIVATE+KEY+PeterNeumann+c74f20a3") }
    }

    @Test func checkpointsRoundTripAndNameWhatIsWrong() throws {
        let signer = try NoteSigner.generate(name: "attendance.example")
        let checkpoint = Checkpoint(origin: "attendance.example/ledger", size: 42, rootHash: MerkleTree.emptyRoot)
        let note = try signer.sign(checkpoint.text)
        #expect(try Checkpoint.open(note, verifier: signer.verifier, origin: "attendance.example/ledger") == checkpoint)
        #expect(throws: Checkpoint.Problem.wrongOrigin(expected: "other", found: "attendance.example/ledger")) {
            try Checkpoint.open(note, verifier: signer.verifier, origin: "other")
        }
        #expect(throws: Checkpoint.Problem.self) { try Checkpoint(text: "origin\n-1\nAAAA\n") }
        #expect(throws: Checkpoint.Problem.self) { try Checkpoint(text: "origin\n007\nAAAA\n") }
        #expect(throws: Checkpoint.Problem.self) { try Checkpoint(text: "origin\n7\nAAAA\n") }
        // Extension lines are allowed.
        #expect(try Checkpoint(text: checkpoint.text + "extra\n") == checkpoint)
    }
}
