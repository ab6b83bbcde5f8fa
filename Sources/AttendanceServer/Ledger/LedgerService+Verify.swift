import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// `attendance ledger verify` (every row) and the server's own check of the ledger's tail.
extension LedgerService {
    /// What a check found: the chain's walk and the tree's checks.
    public struct Verification: Sendable {
        public var chain: LedgerVerification
        /// Checkpoints the rebuilt tree matched.
        public var checkpoints: [LedgerTreeVerifier.Target]
        /// What else is wrong: the tree, seals, rows left out.
        public var treeProblems: [String]

        public var isIntact: Bool { chain.isIntact && treeProblems.isEmpty }

        /// Every problem, the chain's first.
        public var problems: [String] {
            (chain.firstBreak.map { broken in
                let place =
                    broken.sequence.map { "seal \($0), row \(broken.eventId)" }
                    ?? "row \(broken.eventId) (not sealed)"
                return ["the chain is broken at \(place): \(broken.reason)"]
            } ?? []) + treeProblems
        }
    }

    /// How long a committed row may wait for its seal, and its sealed row for the tree, before a
    /// check calls it left out (the sealer runs every second).
    public static let sealingGrace: TimeInterval = 60

    /// Walks the whole chain, then every row not sealed yet (whatever its id), rebuilding the Merkle
    /// tree from the rows as it goes; holds it to the newest checkpoint the database stores (its
    /// signature checked with `verifier`) and to `kept`, a checkpoint signed earlier and kept
    /// elsewhere. With `now`, a row unsealed or out of the tree for longer than `sealingGrace` fails.
    public func verify(verifier: NoteVerifier? = nil, kept: Checkpoint? = nil, now: Date? = nil) async throws
        -> Verification
    {
        var targets: [LedgerTreeVerifier.Target] = []
        if let kept { targets.append(.init(checkpoint: kept, source: "the kept checkpoint")) }
        let stored = try await repository.latestCheckpoint()
        var problems = stored.map { checkSignature($0, verifier: verifier) } ?? []
        if let stored, problems.isEmpty {
            targets.append(.init(checkpoint: stored.checkpoint, source: "the database's newest checkpoint"))
        }
        var chain = LedgerVerifier()
        var tree = LedgerTreeVerifier(targets: targets)
        try await walk(after: 0, chain: &chain, tree: &tree)
        tree.finish()
        try await checkUnsealed(&chain, now: now)
        problems += try await leftOut(stored, sealed: Int64(chain.sealed), after: 0, now: now)
        return Verification(
            chain: chain.verification, checkpoints: tree.matched, treeProblems: problems + tree.problems)
    }

    /// The server's check at start and on a timer: the last `rows` seals and their rows, the
    /// newest checkpoint's signature and the stored tree's root under it, and rows left out (a tree
    /// still catching up since the server `started`, after an upgrade, is not left out).
    public func verifyTail(rows: Int64, verifier: NoteVerifier, now: Date, started: Date) async throws
        -> Verification
    {
        let stored = try await repository.latestCheckpoint()
        var problems = stored.map { checkSignature($0, verifier: verifier) } ?? []
        if let stored, problems.isEmpty {
            let tree = 0..<stored.checkpoint.size
            let nodes = try await repository.treeNodes(MerkleTree.nodes(covering: tree))
            if MerkleTree.hash(of: tree, from: nodes) != stored.checkpoint.rootHash {
                problems.append(
                    "the stored tree does not hash to the root of the newest checkpoint "
                        + "(size \(stored.checkpoint.size)): its nodes were changed")
            }
        }
        let latest = try await repository.latestLedgerSeal()
        let start = max(0, latest - rows)
        var chain = LedgerVerifier()
        if start > 0, let base = try await repository.ledgerSeals(after: start - 1, limit: 1).first?.seal {
            chain = LedgerVerifier(after: base)
        }
        var tree = LedgerTreeVerifier(targets: [])
        try await walk(after: start, chain: &chain, tree: &tree)
        try await checkUnsealed(&chain, now: now)
        problems += try await leftOut(stored, sealed: latest, after: start, now: now, growingSince: started)
        return Verification(chain: chain.verification, checkpoints: [], treeProblems: problems + tree.problems)
    }

    private func checkSignature(_ stored: StoredCheckpoint, verifier: NoteVerifier?) -> [String] {
        guard let verifier, (try? verifier.open(stored.note)) == nil else { return [] }
        return [
            "the database's newest checkpoint (size \(stored.checkpoint.size)) is not signed by \(verifier.encoded)"
        ]
    }

    /// The seals after `sequence` with their rows, into the chain and (as leaves) the tree, each
    /// leaf held to the one the stored tree has for it.
    private func walk(after sequence: Int64, chain: inout LedgerVerifier, tree: inout LedgerTreeVerifier)
        async throws
    {
        var sequence = sequence
        while true {
            let page = try await repository.ledgerSeals(after: sequence, limit: pageSize)
            var leaves: [Int64: MerkleTree.Hash] = [:]
            if let first = page.first?.seal.sequence, let last = page.last?.seal.sequence {
                leaves = try await repository.treeLeaves((first - 1)..<last)
            }
            for (seal, event) in page {
                chain.check(seal, event: event)
                if let event {
                    tree.append(
                        eventId: event.id, contentHash: LedgerHash.content(of: event),
                        storedLeaf: leaves[seal.sequence - 1])
                }
            }
            guard let last = page.last, page.count == pageSize else { return }
            sequence = last.seal.sequence
        }
    }

    /// Every row without a seal, whatever its id.
    private func checkUnsealed(_ chain: inout LedgerVerifier, now: Date?) async throws {
        let recent = now.map { $0.addingTimeInterval(-Self.sealingGrace)...$0.addingTimeInterval(Self.sealingGrace) }
        var id = Int64.min
        while true {
            let page = try await repository.unsealedLedgerEvents(after: id, limit: pageSize)
            for event in page { chain.checkUnsealed(event, recent: recent) }
            guard let last = page.last, page.count == pageSize else { return }
            id = last.id
        }
    }

    /// Sealed rows the tree left out, and a row sealed twice (one of its seals after `start`). The
    /// tree grows after the seals: rows sealed before the newest checkpoint was signed and not in it
    /// mean the tree was cut; with a
    /// running server (`growingSince`, its start), rows waiting longer than the grace while no
    /// checkpoint came mean its sealer has stopped. An upgraded database that no server has opened
    /// yet has sealed rows and no tree, which is neither.
    private func leftOut(
        _ stored: StoredCheckpoint?, sealed: Int64, after start: Int64, now: Date?, growingSince: Date? = nil
    ) async throws -> [String] {
        var problems: [String] = []
        if let twice = try await repository.rowsSealedTwice(after: start, limit: 5).first {
            problems.append("row \(twice) is sealed more than once")
        }
        let size = stored?.checkpoint.size ?? 0
        guard sealed > size, let since = try await repository.sealTime(sequence: size + 1) else { return problems }
        if let stored, stored.signedAt.timeIntervalSince(since) > Self.sealingGrace {
            problems.append(
                "\(sealed - size) sealed rows are not in the tree, the first sealed at \(RFC3339.format(since)), "
                    + "before the newest checkpoint (\(RFC3339.format(stored.signedAt))): the tree was cut")
        } else if let now, let growingSince,
            now.timeIntervalSince(max(stored?.signedAt ?? .distantPast, growingSince)) > Self.sealingGrace,
            now.timeIntervalSince(since) > Self.sealingGrace
        {
            problems.append(
                "\(sealed - size) sealed rows are not in the tree, the first sealed at \(RFC3339.format(since)): "
                    + "the sealer has stopped growing it")
        }
        return problems
    }
}
