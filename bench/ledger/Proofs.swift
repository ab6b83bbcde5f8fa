import AttendanceModels
import AttendanceServer
import AttendanceStorage
import BenchSupport
import Foundation
import Logging

/// `ledger-bench --proofs N`: on a database whose tree is grown (`attendance ledger verify --seal
/// --ledger-key`), N inclusion proofs of random leaves and N consistency proofs from a random
/// earlier size to the newest checkpoint, through `LedgerProofService` as the HTTP handlers call it;
/// each checked against the checkpoint. Prints the proofs' sizes and the times per proof.
func measureProofs(_ options: Options, logger: Logger) async throws {
    let repository: any ServerRepository =
        options.isPostgres
        ? try await PostgresRepository.connect(url: options.database, logger: logger)
        : try SQLiteRepository.open(path: options.database)
    defer { repository.shutdown() }
    let proofs = LedgerProofService(repository: repository)
    let checkpoint = try await proofs.latest().checkpoint
    var rng = SplitMix64(state: options.seed)
    var inclusion: [Double] = []
    var consistency: [Double] = []
    var inclusionHashes: [Int] = []
    var consistencyHashes: [Int] = []
    for _ in 0..<options.proofs {
        let index = Int64(rng.next() % UInt64(checkpoint.size))
        var started = ContinuousClock.now
        let proof = try await proofs.inclusion(index: index, size: nil)
        inclusion.append(seconds(since: started) * 1000)
        inclusionHashes.append(proof.hashes.count)
        guard
            MerkleProof.verifyInclusion(
                leafHash: proof.leafHash, index: index, size: checkpoint.size, proof: proof.hashes,
                root: checkpoint.rootHash)
        else { throw BenchError("the inclusion proof of leaf \(index) does not check") }
        let old = 1 + Int64(rng.next() % UInt64(checkpoint.size))
        started = ContinuousClock.now
        let hashes = try await proofs.consistency(from: old, to: checkpoint.size)
        consistency.append(seconds(since: started) * 1000)
        consistencyHashes.append(hashes.count)
    }
    func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    print("tree size \(checkpoint.size); \(options.proofs) proofs of each kind")
    for (name, times, sizes) in [
        ("inclusion", inclusion, inclusionHashes), ("consistency", consistency, consistencyHashes),
    ] {
        print(
            String(
                format: "%@ proof: %d to %d hashes (%d to %d bytes); %.3f ms p50, %.3f ms p99, %.3f ms max", name,
                sizes.min() ?? 0, sizes.max() ?? 0, (sizes.min() ?? 0) * 32, (sizes.max() ?? 0) * 32,
                percentile(times, 0.5), percentile(times, 0.99), times.max() ?? 0))
    }
}
