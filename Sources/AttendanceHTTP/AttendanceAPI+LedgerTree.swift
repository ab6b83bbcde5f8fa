import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import OpenAPIRuntime

/// The ledger's Merkle tree on the wire: the newest signed checkpoint and RFC 9162's proofs.
extension AttendanceAPI {
    private var proofs: LedgerProofService { LedgerProofService(repository: repository) }

    func getLedgerCheckpoint(
        _ input: Operations.GetLedgerCheckpoint.Input
    ) async throws -> Operations.GetLedgerCheckpoint.Output {
        .ok(.init(body: .plainText(HTTPBody(try await proofs.latest().note))))
    }

    func getLedgerInclusionProof(
        _ input: Operations.GetLedgerInclusionProof.Input
    ) async throws -> Operations.GetLedgerInclusionProof.Output {
        let proof = try await proofs.inclusion(index: input.query.index, size: input.query.size)
        return .ok(
            .init(
                body: .json(
                    .init(
                        index: proof.index, treeSize: proof.treeSize,
                        leafHash: Self.base64(proof.leafHash), hashes: proof.hashes.map(Self.base64)))))
    }

    func getLedgerConsistencyProof(
        _ input: Operations.GetLedgerConsistencyProof.Input
    ) async throws -> Operations.GetLedgerConsistencyProof.Output {
        let hashes = try await proofs.consistency(from: input.query.from, to: input.query.to)
        return .ok(
            .init(
                body: .json(
                    .init(
                        from: input.query.from, to: input.query.to,
                        hashes: hashes.map(Self.base64)))))
    }

    func postLedgerCosignature(
        _ input: Operations.PostLedgerCosignature.Input
    ) async throws -> Operations.PostLedgerCosignature.Output {
        guard case .plainText(let body) = input.body else { throw Self.unsupportedBody }
        let note: String
        do {
            // 8192 characters of up to 4 bytes each.
            note = try await String(collecting: body, upTo: 4 * 8_192)
        } catch {
            throw DomainError.field("body", nil, expected: "a cosigned checkpoint note of at most 8192 characters")
        }
        guard note.count <= 8_192 else {
            throw DomainError.field(
                "body", String(note.prefix(40)), expected: "a cosigned checkpoint note of at most 8192 characters")
        }
        return .created(.init(body: .json(Self.cosignature(try await witnesses.accept(note)))))
    }

    func listLedgerWitnesses(
        _ input: Operations.ListLedgerWitnesses.Input
    ) async throws -> Operations.ListLedgerWitnesses.Output {
        .ok(
            .init(
                body: .json(
                    try await witnesses.statuses().map { status in
                        .init(
                            name: status.witness.name, key: status.witness.encoded,
                            last: status.last.map(Self.cosignature))
                    })))
    }

    private static func cosignature(_ kept: StoredCosignature) -> Components.Schemas.Cosignature {
        .init(witness: kept.witness, treeSize: kept.treeSize, line: kept.line, cosignedAt: kept.cosignedAt)
    }

    /// A hash as the contract carries it (standard base64, as in checkpoints).
    private static func base64(_ hash: MerkleTree.Hash) -> String { Data(hash).base64EncodedString() }
}
