import AttendanceModels
import Crypto
import Foundation
import Testing

/// Cosignatures as C2SP tlog-cosignature defines them, checked against the spec's message built
/// here by hand; and the witness's decision, one test per case.
@Suite struct CosignatureTests {
    static let log = (try? NoteSigner.generate(name: "example.com/ledger"))!
    static func note(size: Int64, leaf: UInt8) throws -> (Checkpoint, String) {
        let checkpoint = Checkpoint(
            origin: "example.com/ledger", size: size, rootHash: MerkleTree.leafHash(Data([leaf])))
        return (checkpoint, try log.sign(checkpoint.text))
    }

    @Test func aCosignatureSignsTheSpecsMessageWithATimestamp() throws {
        let seed = Curve25519.Signing.PrivateKey()
        let witness = try Cosigner(name: "witness.example.com/w1", key: seed)
        let (checkpoint, note) = try Self.note(size: 7, leaf: 1)
        let cosigned = try witness.cosign(note, time: 1_679_315_147)
        #expect(cosigned.hasPrefix(note))
        #expect(try witness.verifier.time(in: cosigned) == 1_679_315_147)
        // By hand: key id over 0x04, then the time big-endian, then Ed25519 over the v1 message.
        let line = try #require(cosigned.split(separator: "\n").last)
        let bytes = try #require(Data(base64Encoded: String(line.split(separator: " ")[2])))
        let id = Array(
            SHA256.digest(Array("witness.example.com/w1\n".utf8) + [0x04] + Array(seed.publicKey.rawRepresentation))
                .prefix(4))
        #expect(Array(bytes.prefix(4)) == id)
        #expect(Array(bytes[4..<12]) == [0, 0, 0, 0, 0x64, 0x18, 0x50, 0xcb])
        let message = "cosignature/v1\ntime 1679315147\n" + checkpoint.text
        #expect(seed.publicKey.isValidSignature(bytes.dropFirst(12), for: Data(message.utf8)))
    }

    @Test func anotherKeyOrAnotherCheckpointDoesNotVerify() throws {
        let witness = try Cosigner.generate(name: "w.example/1")
        let (_, note) = try Self.note(size: 7, leaf: 1)
        let cosigned = try witness.cosign(note, time: 100)
        #expect(throws: SignedNote.Problem.self) {
            try Cosigner.generate(name: "w.example/1").verifier.time(in: cosigned)
        }
        let moved = cosigned.replacingOccurrences(of: "\n7\n", with: "\n8\n")
        #expect(throws: SignedNote.Problem.self) { try witness.verifier.time(in: moved) }
    }

    @Test func theKeysReadBackAndDifferFromNoteKeys() throws {
        let witness = try Cosigner.generate(name: "w.example/1")
        #expect(try Cosigner(encoded: witness.encoded).verifier == witness.verifier)
        #expect(try CosignatureVerifier(encoded: witness.verifier.encoded) == witness.verifier)
        // A note verifier key is not a witness key: its type byte is 0x01.
        #expect(throws: SignedNote.Problem.self) { try CosignatureVerifier(encoded: Self.log.verifier.encoded) }
    }

    // The witness's decision.

    @Test func theFirstCheckpointIsCosigned() throws {
        let (next, _) = try Self.note(size: 3, leaf: 1)
        #expect(WitnessRules.decide(last: nil, next: next, proof: nil) == .cosign(next))
    }

    @Test func anotherLogIsRefused() throws {
        let (last, _) = try Self.note(size: 3, leaf: 1)
        var next = last
        next.origin = "other.example/ledger"
        guard case .refuse(let why) = WitnessRules.decide(last: last, next: next, proof: nil) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(why.contains("other.example/ledger"))
    }

    @Test func aSmallerTreeIsARollback() throws {
        let (last, _) = try Self.note(size: 3, leaf: 1)
        let (next, _) = try Self.note(size: 2, leaf: 1)
        #expect(
            WitnessRules.decide(last: last, next: next, proof: nil)
                == .refuse("the log went back from 3 to 2 rows (a rollback)"))
    }

    @Test func theSameTreeIsUnchangedAndAnotherOfTheSameSizeIsAFork() throws {
        let (last, _) = try Self.note(size: 3, leaf: 1)
        let (other, _) = try Self.note(size: 3, leaf: 2)
        #expect(WitnessRules.decide(last: last, next: last, proof: nil) == .unchanged)
        #expect(
            WitnessRules.decide(last: last, next: other, proof: nil)
                == .refuse("the log shows two different trees of 3 rows (a fork)"))
    }

    @Test func aLargerTreeNeedsAProofThatMustHold() throws {
        let leaves = (0..<5).map { MerkleTree.leafHash(Data([UInt8($0)])) }
        func grown(_ count: Int) -> MerkleAppender {
            var appender = MerkleAppender(size: 0, edge: [])
            for leaf in leaves.prefix(count) { appender.append(leafHash: leaf) }
            return appender
        }
        let old = Checkpoint(origin: "l", size: 3, rootHash: grown(3).root)
        let new = Checkpoint(origin: "l", size: 5, rootHash: grown(5).root)
        #expect(WitnessRules.decide(last: old, next: new, proof: nil) == .needProof(from: 3, to: 5))
        let stored = Dictionary(grown(5).written.map { ($0.node, $0.hash) }, uniquingKeysWith: { first, _ in first })
        let proof = try MerkleTree.consistencyRanges(old: 3, new: 5).map {
            try #require(MerkleTree.hash(of: $0, from: stored))
        }
        #expect(WitnessRules.decide(last: old, next: new, proof: proof) == .cosign(new))
        var forged = new
        forged.rootHash = MerkleTree.leafHash(Data([9]))
        guard case .refuse(let why) = WitnessRules.decide(last: old, next: forged, proof: proof) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(why.contains("does not extend"))
    }
}
