import AttendanceModels
import AttendanceTestSupport
import Foundation
import Testing

/// The Merkle tree against `Tests/vectors/merkle_vectors.py`, an implementation of RFC 9162 in
/// Python's standard library: roots and proofs for every size from 1 to 1,000, built the way the
/// server builds them (appended leaf by leaf into stored nodes, proofs read from those nodes).
@Suite struct MerkleVectorsTests {
    struct Vectors: Decodable {
        struct Tree: Decodable {
            var size: Int64
            var root: String
            var inclusion: [String: [String]]
            var consistency: [String: [String]]
        }
        var emptyRoot: String
        var trees: [Tree]
    }

    static func vectors() throws -> Vectors {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("vectors/merkle_vectors.py")
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "1000"])
        try #require(run.status == 0, "merkle_vectors.py failed: \(run.stderr)")
        return try JSONDecoder().decode(Vectors.self, from: Data(run.stdout.utf8))
    }

    /// Every node of a 1,000-leaf tree, as the server's table keeps them.
    static func storedNodes(leaves: Int64) -> [MerkleTree.Node: MerkleTree.Hash] {
        var appender = MerkleAppender(size: 0, edge: [])
        for index in 0..<leaves { appender.append(leafHash: MerkleTree.leafHash(Array("leaf \(index)".utf8))) }
        return Dictionary(uniqueKeysWithValues: appender.written.map { ($0.node, $0.hash) })
    }

    static func hash(_ range: Range<Int64>, _ nodes: [MerkleTree.Node: MerkleTree.Hash]) -> MerkleTree.Hash {
        MerkleTree.fold(MerkleTree.nodes(covering: range).map { nodes[$0]! })
    }

    static func hex(_ hashes: [MerkleTree.Hash]) -> [String] {
        hashes.map { $0.map { String(format: "%02x", $0) }.joined() }
    }

    @Test func rootsAndProofsMatchAnIndependentImplementation() throws {
        let vectors = try Self.vectors()
        let nodes = Self.storedNodes(leaves: 1000)
        #expect(Self.hex([MerkleTree.emptyRoot]) == [vectors.emptyRoot])
        #expect(vectors.trees.count == 1000)
        var checked = 0
        for tree in vectors.trees {
            let root = Self.hash(0..<tree.size, nodes)
            #expect(Self.hex([root]) == [tree.root], "root of \(tree.size)")
            for (position, expected) in tree.inclusion {
                let index = Int64(position)!
                let proof = MerkleTree.inclusionRanges(index: index, size: tree.size).map { Self.hash($0, nodes) }
                #expect(Self.hex(proof) == expected, "inclusion of \(index) in \(tree.size)")
                #expect(
                    MerkleProof.verifyInclusion(
                        leafHash: nodes[MerkleTree.Node(level: 0, index: index)]!, index: index, size: tree.size,
                        proof: proof, root: root))
                checked += 1
            }
            for (position, expected) in tree.consistency {
                let old = Int64(position)!
                let proof = MerkleTree.consistencyRanges(old: old, new: tree.size).map { Self.hash($0, nodes) }
                #expect(Self.hex(proof) == expected, "consistency of \(old) with \(tree.size)")
                #expect(
                    MerkleProof.verifyConsistency(
                        oldSize: old, oldRoot: Self.hash(0..<old, nodes), newSize: tree.size, newRoot: root,
                        proof: proof))
                checked += 1
            }
        }
        #expect(checked > 6000)
    }

    @Test func appendingKeepsTheRightEdgeOfTheTreeSoFar() {
        var appender = MerkleAppender(size: 0, edge: [])
        let nodes = Self.storedNodes(leaves: 300)
        for index in Int64(0)..<300 {
            appender.append(leafHash: nodes[MerkleTree.Node(level: 0, index: index)]!)
            let edge = MerkleTree.nodes(covering: 0..<(index + 1)).map { nodes[$0]! }
            #expect(appender.edge == edge)
            #expect(appender.root == Self.hash(0..<(index + 1), nodes))
        }
        // Resumed from a stored edge, it goes on as if never stopped.
        var resumed = MerkleAppender(size: 100, edge: MerkleTree.nodes(covering: 0..<100).map { nodes[$0]! })
        for index in Int64(100)..<300 { resumed.append(leafHash: nodes[MerkleTree.Node(level: 0, index: index)]!) }
        #expect(resumed.root == appender.root)
        #expect(resumed.written.count == nodes.filter { $0.key.leaves.upperBound > 100 }.count)
    }

    @Test func forgedProofsFail() {
        let nodes = Self.storedNodes(leaves: 37)
        let root = Self.hash(0..<37, nodes)
        let leaf5 = nodes[MerkleTree.Node(level: 0, index: 5)]!
        let proof = MerkleTree.inclusionRanges(index: 5, size: 37).map { Self.hash($0, nodes) }
        #expect(MerkleProof.verifyInclusion(leafHash: leaf5, index: 5, size: 37, proof: proof, root: root))
        // Another leaf, another index, a size the proof wasn't made for, a changed hash, a short proof.
        let leaf6 = nodes[MerkleTree.Node(level: 0, index: 6)]!
        #expect(!MerkleProof.verifyInclusion(leafHash: leaf6, index: 5, size: 37, proof: proof, root: root))
        #expect(!MerkleProof.verifyInclusion(leafHash: leaf5, index: 4, size: 37, proof: proof, root: root))
        #expect(!MerkleProof.verifyInclusion(leafHash: leaf5, index: 5, size: 17, proof: proof, root: root))
        #expect(!MerkleProof.verifyInclusion(leafHash: leaf5, index: 5, size: 37, proof: proof.dropLast(), root: root))
        var changed = proof
        changed[1][0] ^= 1
        #expect(!MerkleProof.verifyInclusion(leafHash: leaf5, index: 5, size: 37, proof: changed, root: root))

        let old = Self.hash(0..<20, nodes)
        let consistency = MerkleTree.consistencyRanges(old: 20, new: 37).map { Self.hash($0, nodes) }
        #expect(
            MerkleProof.verifyConsistency(oldSize: 20, oldRoot: old, newSize: 37, newRoot: root, proof: consistency))
        // A rewritten history: the old root of another tree.
        let other = Self.hash(0..<21, nodes)
        #expect(
            !MerkleProof.verifyConsistency(oldSize: 20, oldRoot: other, newSize: 37, newRoot: root, proof: consistency))
        #expect(
            !MerkleProof.verifyConsistency(oldSize: 21, oldRoot: old, newSize: 37, newRoot: root, proof: consistency))
        #expect(!MerkleProof.verifyConsistency(oldSize: 20, oldRoot: old, newSize: 37, newRoot: root, proof: []))
    }
}
