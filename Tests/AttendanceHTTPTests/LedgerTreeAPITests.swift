import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import Testing

@testable import AttendanceHTTP

/// The ledger's checkpoint and proofs over HTTP, as a phone and an auditor fetch them: the server's
/// own sealer grows the tree, the checkpoint opens with the server's verifier key, the proofs check
/// with nothing but the hashes; who may ask, and what a bad question gets.
@Suite struct LedgerTreeAPITests {
    static func hashes(_ value: Any?) -> [MerkleTree.Hash] {
        ((value as? [String]) ?? []).compactMap { Data(base64Encoded: $0).map(Array.init) }
    }

    /// Runs docs/examples/verify-inclusion.sh on these answers; its exit status.
    static func documentedCheck(note: String, proof: String, verifier: NoteVerifier, row: LedgerEvent) throws -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(note.utf8).write(to: directory.appendingPathComponent("checkpoint.note"))
        try Data(proof.utf8).write(to: directory.appendingPathComponent("proof.json"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/verify-inclusion.sh")
        return try ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), [script.path],
            environment: ["VERIFIER_KEY": verifier.encoded, "ROW_ID": "\(row.id)", "ROW_HASH": row.hash],
            directory: directory
        ).status
    }

    @Test(arguments: Backend.allCases) func checkpointsAndProofsOverHTTP(backend: Backend) async throws {
        let signer = try NoteSigner.generate(name: "attendance.test/ledger")
        let live = try await LiveServer.start(
            try await backend.makeRepository(), ledgerSigner: signer, sealIntervalMilliseconds: 50)
        let ada = try await live.enrollEmployee(name: "Ada")
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k1", json: LiveServer.checkIn(ada)
            ).status == 201)
        let count = try await live.repository.latestLedgerID()
        var checkpoint: Checkpoint?
        for _ in 0..<100 {
            let answer = try await live.send("GET", "/v1/ledger/checkpoint", token: ada.token)
            if answer.status == 200 {
                #expect(answer.header("Content-Type")?.hasPrefix("text/plain") == true)
                let opened = try Checkpoint.open(answer.text, verifier: signer.verifier, origin: signer.name)
                if opened.size >= count {
                    checkpoint = opened
                    break
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let latest = try #require(checkpoint, "the sealer grew no tree over \(count) rows")
        // The device's own check-in, found by its row and proved in the tree.
        let rows = try await live.repository.ledgerEvents(
            LedgerFilter(userId: UserID(ada.userId)), before: nil, limit: 10)
        let row = try #require(rows.first { $0.kind == LedgerKind.checkIn })
        let index = try #require(try await live.repository.treeLeaf(eventId: row.id))
        let proof = try await live.send("GET", "/v1/ledger/proofs/inclusion?index=\(index)", token: ada.token).json
        #expect(proof["treeSize"] as? Int == Int(latest.size))
        let leafHash = try #require(Data(base64Encoded: proof["leafHash"] as? String ?? "")).map { $0 }
        #expect(leafHash == LedgerLeaf.hash(eventId: row.id, contentHash: row.hash))
        #expect(
            MerkleProof.verifyInclusion(
                leafHash: leafHash, index: index, size: latest.size, proof: Self.hashes(proof["hashes"]),
                root: latest.rootHash))
        // The documented check with openssl and Python alone (docs/examples/verify-inclusion.sh).
        #expect(
            try Self.documentedCheck(
                note: try await live.send("GET", "/v1/ledger/checkpoint").text,
                proof: try await live.send("GET", "/v1/ledger/proofs/inclusion?index=\(index)").text,
                verifier: signer.verifier, row: row) == 0)
        #expect(
            try Self.documentedCheck(
                note: try NoteSigner.generate(name: signer.name).sign(latest.text),
                proof: try await live.send("GET", "/v1/ledger/proofs/inclusion?index=\(index)").text,
                verifier: signer.verifier, row: row) != 0, "a checkpoint signed by another key")
        // Consistency from an earlier size to now, as a witness asks for it.
        let consistency = try await live.send(
            "GET", "/v1/ledger/proofs/consistency?from=1&to=\(latest.size)", token: LiveServer.adminToken)
        #expect(consistency.status == 200)
        let first = try await live.send("GET", "/v1/ledger/proofs/inclusion?index=0&size=1").json
        #expect(
            MerkleProof.verifyConsistency(
                oldSize: 1, oldRoot: Self.hashes([first["leafHash"] as? String ?? ""])[0], newSize: latest.size,
                newRoot: latest.rootHash, proof: Self.hashes(consistency.json["hashes"])))

        // Who may ask: any device, an auditor; nobody without a token.
        #expect(try await live.send("GET", "/v1/ledger/checkpoint", token: nil).status == 401)
        let auditor = try await RolesOverHTTPTests.token(live, .auditor)
        #expect(try await live.send("GET", "/v1/ledger/checkpoint", token: auditor).status == 200)
        // Bad questions name the field and what was expected.
        let beyond = try await live.send("GET", "/v1/ledger/proofs/inclusion?index=1000000")
        #expect(beyond.status == 404)
        #expect(beyond.detail.contains("'index'"), "\(beyond.detail)")
        let future = try await live.send("GET", "/v1/ledger/proofs/inclusion?index=0&size=1000000")
        #expect(future.status == 404)
        #expect(future.detail.contains("'size'"), "\(future.detail)")
        let backwards = try await live.send("GET", "/v1/ledger/proofs/consistency?from=\(latest.size)&to=1")
        #expect(backwards.status == 422)
        #expect(try await live.send("GET", "/v1/ledger/proofs/inclusion?index=abc").status == 400)
        try await live.stop()
    }

    /// The server checks the ledger's tail every second here (every five minutes by default): a row
    /// edited behind its back turns `/health` to "degraded" naming it, `ledger_check_ok` to 0, and
    /// puts a banner on the console for the owner and the auditor, not for a site manager.
    @Test(arguments: Backend.allCases) func aBrokenLedgerShowsInHealthMetricsAndTheConsole(backend: Backend)
        async throws
    {
        let live = try await LiveServer.start(
            try await backend.makeRepository(), sealIntervalMilliseconds: 50, ledgerCheckIntervalSeconds: 1)
        let ada = try await live.enrollEmployee(name: "Ada")
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k1", json: LiveServer.checkIn(ada)
            ).status == 201)
        let owner = try await ConsoleHTTPTests.signIn(live, .owner)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await live.send("GET", "/health", token: nil).json["status"] as? String == "ok")
        #expect(
            !(try await ConsoleHTTPTests.request(live, "GET", "/console/presence", cookie: owner.cookie).body
                .contains("ledger-failure")))
        let row = try #require(
            try await live.repository.ledgerEvents(LedgerFilter(), before: nil, limit: 1).first)
        // Behind the server's back, through the storage port: the guard dropped, the row edited.
        let guardOff =
            backend == .sqlite
            ? "DROP TRIGGER ledger_rows_are_never_changed" : "ALTER TABLE ledger_events DISABLE TRIGGER USER"
        let storage = try #require(live.repository as? any SQLStorage)
        try await storage.database.write { tx in
            _ = try await tx.execute("\(raw: guardOff)")
            _ = try await tx.execute("UPDATE ledger_events SET received_at = received_at - 60 WHERE id = \(row.id)")
        }
        var health: [String: Any] = [:]
        for _ in 0..<40 {
            health = try await live.send("GET", "/health", token: nil).json
            if health["status"] as? String == "degraded" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(health["status"] as? String == "degraded")
        let problems = health["ledgerProblems"] as? [String] ?? []
        #expect(problems.contains { $0.contains("row \(row.id)") }, "\(problems)")
        #expect(try await live.send("GET", "/metrics", token: nil).text.contains("\nledger_check_ok 0"))
        let page = try await ConsoleHTTPTests.request(live, "GET", "/console/presence", cookie: owner.cookie).body
        #expect(page.contains("id=\"ledger-failure\""))
        #expect(page.contains("row \(row.id)"))
        let manager = try await ConsoleHTTPTests.signIn(live, .manager, sites: [SiteID(ada.siteId)])
        #expect(
            !(try await ConsoleHTTPTests.request(live, "GET", "/console/presence", cookie: manager.cookie).body
                .contains("ledger-failure")))
        try await live.stop()
    }
}
