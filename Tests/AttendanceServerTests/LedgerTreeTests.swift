import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// The ledger's Merkle tree on both backends: grown over the sealed rows with one signed checkpoint
/// per round, proofs that check against those checkpoints, and the rewrites an attacker holding
/// the database (but not the key) can make, each caught by a checkpoint kept from before.
@Suite struct LedgerTreeTests {
    static let now = IngestServiceTests.now
    static let signer = try! NoteSigner.generate(name: "attendance.test/ledger")

    /// A ledger of a shuffled day, sealed and in the tree, with the checkpoint a witness kept.
    static func ledger(_ backend: Backend) async throws -> (any ServerRepository, LedgerService, Checkpoint) {
        let service = try await IngestServiceTests.service(try await backend.makeRepository())
        let repository = try #require(service.repository as? any ServerRepository)
        for (endpoint, body, key, principal) in LedgerStoreTests.shuffledDay(seed: 4) {
            _ = try await service.handle(endpoint, body: body, idempotencyKey: key, principal: principal)
        }
        let ledger = LedgerService(repository: repository)
        try await ledger.sealAll(now: now)
        try await ledger.growTree(signer: signer, now: now)
        let kept = try #require(try await repository.latestCheckpoint()).checkpoint
        return (repository, ledger, kept)
    }

    @Test(arguments: Backend.allCases)
    func proofsFromTheStoredTreeCheckAgainstItsCheckpoints(backend: Backend) async throws {
        let (repository, ledger, first) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let sealed = try await ledger.verify().chain.sealed
        #expect(first.size == Int64(sealed))
        #expect(first.origin == "attendance.test/ledger")
        // A second round: more rows, a second checkpoint, consistent with the first.
        for index in 0..<3 {
            try await repository.appendLedger(
                LedgerEvent.admin(
                    .siteUpdated, target: "site-\(index)", changes: [:], actor: .adminToken, now: Self.now))
        }
        try await ledger.sealAll(now: Self.now)
        try await ledger.growTree(signer: Self.signer, now: Self.now)
        let stored = try #require(try await repository.latestCheckpoint())
        let second = try Checkpoint.open(stored.note, verifier: Self.signer.verifier, origin: "attendance.test/ledger")
        #expect(second.size == first.size + 3)
        let proofs = LedgerProofService(repository: repository)
        for index in 0..<second.size {
            let proof = try await proofs.inclusion(index: index, size: nil)
            #expect(
                MerkleProof.verifyInclusion(
                    leafHash: proof.leafHash, index: index, size: second.size, proof: proof.hashes,
                    root: second.rootHash), "leaf \(index)")
        }
        // The leaf is the row's: its id and content hash.
        let row = try #require(try await repository.ledgerEvents(after: 0, limit: 1).first)
        let leaf = try #require(try await repository.treeLeaf(eventId: row.id))
        #expect(
            try await proofs.inclusion(index: leaf, size: nil).leafHash
                == LedgerLeaf.hash(eventId: row.id, contentHash: row.hash))
        let consistency = try await proofs.consistency(from: first.size, to: second.size)
        #expect(
            MerkleProof.verifyConsistency(
                oldSize: first.size, oldRoot: first.rootHash, newSize: second.size, newRoot: second.rootHash,
                proof: consistency))
        // Sizes no checkpoint reached are refused, naming the field.
        await #expect(throws: DomainError.self) { try await proofs.inclusion(index: second.size, size: nil) }
        await #expect(throws: DomainError.self) { try await proofs.consistency(from: 1, to: second.size + 1) }
        let verified = try await ledger.verify(verifier: Self.signer.verifier, kept: first)
        #expect(verified.isIntact, "\(verified.treeProblems)")
        #expect(verified.checkpoints.map(\.checkpoint.size) == [first.size, second.size])
    }

    /// What a rewrite can redo without the key: every hash, seal and tree node recomputed from the
    /// rows as the attacker wants them, in `order`, and every checkpoint deleted (a checkpoint
    /// signed by another key would show at once).
    static func reseal(_ repository: any ServerRepository, order: [Int64], tree: Bool = true) async throws {
        let guards =
            repository.backendName == "sqlite"
            ? """
            DROP TRIGGER IF EXISTS ledger_rows_are_never_changed;
            DROP TRIGGER IF EXISTS ledger_rows_are_never_deleted;
            DROP TRIGGER IF EXISTS ledger_seals_are_never_changed;
            DROP TRIGGER IF EXISTS ledger_seals_are_never_deleted;
            DROP TRIGGER IF EXISTS ledger_tree_append_only_delete;
            DROP TRIGGER IF EXISTS ledger_checkpoints_append_only_delete
            """
            : """
            ALTER TABLE ledger_events DISABLE TRIGGER USER;
            ALTER TABLE ledger_seals DISABLE TRIGGER USER;
            ALTER TABLE ledger_tree DISABLE TRIGGER USER;
            ALTER TABLE ledger_checkpoints DISABLE TRIGGER USER
            """
        try await LedgerStoreTests.execute(guards, on: repository)
        try await LedgerStoreTests.execute(
            tree
                ? "DELETE FROM ledger_checkpoints;\nDELETE FROM ledger_tree;\nDELETE FROM ledger_seals"
                : "DELETE FROM ledger_seals", on: repository)
        var hashes: [Int64: String] = [:]
        for event in try await repository.ledgerEvents(after: Int64.min, limit: 10_000) {
            let hash = LedgerHash.content(of: event)
            hashes[event.id] = hash
            try await LedgerStoreTests.execute(
                "UPDATE ledger_events SET hash = '\(hash)' WHERE id = \(event.id)", on: repository)
        }
        let seals = LedgerHash.seals(
            after: 0, previous: LedgerHash.genesis, events: order.map { (id: $0, hash: hashes[$0]!) })
        for seal in seals {
            try await LedgerStoreTests.execute(
                """
                INSERT INTO ledger_seals (sequence, event_id, chain_hash, sealed_at)
                VALUES (\(seal.sequence), \(seal.eventId), '\(seal.chainHash)', 0)
                """, on: repository)
        }
        guard tree else { return }
        try await LedgerService(repository: repository).growTree(
            signer: try NoteSigner.generate(name: "attendance.test/ledger"), now: now)
        try await LedgerStoreTests.execute("DELETE FROM ledger_checkpoints", on: repository)
    }

    static func ids(_ repository: any ServerRepository) async throws -> [Int64] {
        try await repository.ledgerEvents(after: 0, limit: 10_000).map(\.id)
    }

    static func expectCaught(_ repository: any ServerRepository, kept: Checkpoint, _ words: String) async throws {
        let result = try await LedgerService(repository: repository).verify(
            verifier: signer.verifier, kept: kept)
        #expect(
            result.chain.isIntact, "the rewrite recomputed the chain: \(String(describing: result.chain.firstBreak))")
        #expect(!result.isIntact)
        #expect(result.treeProblems.contains { $0.contains(words) }, "\(result.treeProblems)")
    }

    @Test(arguments: Backend.allCases)
    func anEditWithEverythingRecomputedIsCaught(backend: Backend) async throws {
        let (repository, _, kept) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let ids = try await Self.ids(repository)
        try await Self.reseal(repository, order: ids)  // drops the guards; changes nothing yet
        #expect(try await LedgerService(repository: repository).verify(kept: kept).treeProblems.isEmpty)
        try await LedgerStoreTests.execute(
            "UPDATE ledger_events SET device_at = device_at + 3600 WHERE id = \(ids[3])", on: repository)
        try await Self.reseal(repository, order: ids)
        try await Self.expectCaught(repository, kept: kept, "do not hash to the root the kept checkpoint signs")
    }

    @Test(arguments: Backend.allCases)
    func anEditOfTheRowAloneIsNamedByItsIndex(backend: Backend) async throws {
        let (repository, _, kept) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let ids = try await Self.ids(repository)
        try await Self.reseal(repository, order: ids)
        try await LedgerStoreTests.execute(
            "UPDATE ledger_events SET device_at = device_at + 3600 WHERE id = \(ids[3])", on: repository)
        try await Self.reseal(repository, order: ids, tree: false)
        let result = try await LedgerService(repository: repository).verify(verifier: Self.signer.verifier)
        #expect(result.chain.isIntact)
        #expect(
            result.treeProblems == [
                "tree index 3 (row \(ids[3])): the row no longer hashes to its leaf in the tree "
                    + "(changed after it was added)"
            ])
        _ = kept
    }

    @Test(arguments: Backend.allCases)
    func deletingTheNewestRowsIsCaught(backend: Backend) async throws {
        let (repository, _, kept) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let ids = try await Self.ids(repository)
        try await Self.reseal(repository, order: ids)
        try await LedgerStoreTests.execute(
            "DELETE FROM ledger_events WHERE id >= \(ids[ids.count - 2])", on: repository)
        try await Self.reseal(repository, order: Array(ids.dropLast(2)))
        try await Self.expectCaught(repository, kept: kept, "were deleted")
    }

    @Test(arguments: Backend.allCases)
    func insertingARowIsCaught(backend: Backend) async throws {
        let (repository, _, kept) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let ids = try await Self.ids(repository)
        try await repository.appendLedger(
            LedgerEvent.admin(.siteUpdated, target: "forged", changes: [:], actor: .adminToken, now: Self.now))
        let forged = try #require(try await Self.ids(repository).last)
        try await Self.reseal(repository, order: Array(ids.prefix(2)) + [forged] + ids.dropFirst(2))
        try await Self.expectCaught(repository, kept: kept, "do not hash to the root the kept checkpoint signs")
    }

    @Test(arguments: Backend.allCases)
    func reorderingRowsIsCaught(backend: Backend) async throws {
        let (repository, _, kept) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        var ids = try await Self.ids(repository)
        ids.swapAt(1, 2)
        try await Self.reseal(repository, order: ids)
        try await Self.expectCaught(repository, kept: kept, "do not hash to the root the kept checkpoint signs")
    }

    /// Every row in the table is checked, whatever its id: a forged row with a negative id and a
    /// bad hash, and a row inserted by SQL with a right hash that no sealer takes (PostgreSQL's
    /// sealer only takes the rows the server queued), fail once they are older than the grace.
    @Test(arguments: Backend.allCases)
    func rowsBehindTheServersBackFailWhateverTheirId(backend: Backend) async throws {
        let (repository, ledger, _) = try await Self.ledger(backend)
        defer { repository.shutdown() }
        let columns = LedgerRows.insertColumns
        try await LedgerStoreTests.execute(
            """
            INSERT INTO ledger_events (id, \(columns))
            VALUES (-7, 'checkIn', 's-0', 'alice', 'admin-token', 0, NULL, '{}', NULL, NULL, 'not-a-hash')
            """, on: repository)
        let forged = try await ledger.verify(verifier: Self.signer.verifier, now: Self.now)
        #expect(forged.chain.firstBreak?.eventId == -7)
        #expect(forged.chain.unsealed == 1)
        try await LedgerStoreTests.execute(
            backend == .sqlite
                ? "DROP TRIGGER ledger_rows_are_never_deleted;\nDELETE FROM ledger_events WHERE id = -7"
                : "ALTER TABLE ledger_events DISABLE TRIGGER USER;\nDELETE FROM ledger_events WHERE id = -7",
            on: repository)
        // A row with a right hash, received an hour ago and never sealed.
        var row = LedgerEvent.admin(
            .siteUpdated, target: "hq", changes: [:], actor: .adminToken, now: Self.now.addingTimeInterval(-3_600))
        row.hash = LedgerHash.content(of: row)
        try await LedgerStoreTests.execute(
            """
            INSERT INTO ledger_events (id, \(columns))
            VALUES (-8, '\(row.kind.rawValue)', NULL, NULL, '\(row.actor.rawValue)',
                \(row.receivedAt.timeIntervalSince1970), NULL, '\(String(decoding: row.payload, as: UTF8.self))',
                NULL, NULL, '\(row.hash)')
            """, on: repository)
        #expect(try await ledger.verify(verifier: Self.signer.verifier).isIntact, "without a clock, only counted")
        let late = try await ledger.verify(verifier: Self.signer.verifier, now: Self.now)
        #expect(late.chain.firstBreak?.eventId == -8)
        #expect(late.chain.firstBreak?.reason.contains("is not sealed") == true)
    }
}
