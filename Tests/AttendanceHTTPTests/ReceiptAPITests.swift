import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// A phone's receipts over HTTP: only its own rows, each proved into the newest checkpoint; its
/// tamper warning kept and shown to the owner on the audit page with the witnesses' line.
@Suite struct ReceiptAPITests {
    @Test(arguments: Backend.allCases) func aPhoneGetsReceiptsForItsOwnRowsAndItsWarningIsShown(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let (ada, bob) = try await live.adaAndBobOnTwoSites()
        var page: [String: Any] = [:]
        for _ in 0..<100 {
            page = try await live.send("GET", "/v1/me/receipts", token: ada.token).json
            let kinds = (page["items"] as? [[String: Any]])?.compactMap {
                ($0["entry"] as? String)?.split(separator: "\n")[1]
            }
            if kinds?.contains("checkIn") == true { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let items = try #require(page["items"] as? [[String: Any]])
        let entries = items.compactMap { $0["entry"] as? String }
        #expect(!entries.isEmpty && entries.allSatisfy { $0.contains("\ndevice:\(ada.deviceId)\n") })
        #expect(!entries.contains { $0.contains(bob.deviceId) })
        // Each receipt leads to the root of the page's checkpoint, signed by the key the page names.
        let key = try NoteVerifier(encoded: try #require(page["logKey"] as? String))
        let checkpoint = try Checkpoint.open(try #require(page["checkpoint"] as? String), verifier: key)
        for item in items {
            let entry = try #require(item["entry"] as? String)
            let rowId = try #require(item["rowId"] as? Int64)
            let proof = try #require(item["proof"] as? [String]).compactMap { Data(base64Encoded: $0).map(Array.init) }
            #expect(
                MerkleProof.verifyInclusion(
                    leafHash: LedgerLeaf.hash(eventId: rowId, contentHash: SHA256.hex(entry)),
                    index: try #require(item["leafIndex"] as? Int64), size: checkpoint.size, proof: proof,
                    root: checkpoint.rootHash))
        }
        #expect(try await live.send("GET", "/v1/me/receipts").status == 403)
        #expect(try await live.send("GET", "/v1/me/receipts?limit=500", token: ada.token).status == 400)

        let problem = "the tree of 5 rows does not extend the 3 kept before (its proof fails)"
        let warned = try await live.send(
            "POST", "/v1/me/ledger-warnings", token: ada.token, json: ["problem": problem])
        #expect(warned.status == 201, "\(warned.text)")
        #expect(try await live.send("POST", "/v1/me/ledger-warnings", json: ["problem": problem]).status == 403)
        let owner = try await ConsoleHTTPTests.signIn(live, .owner)
        let audit = try await ConsoleHTTPTests.request(live, "GET", "/console/audit", cookie: owner.cookie)
        #expect(audit.body.contains("id=\"ledger-warnings\"") && audit.body.contains(ada.deviceId))
        #expect(audit.body.contains("does not extend the 3 kept before"))
        #expect(audit.body.contains("Not witnessed yet"))
        try await live.stop()
    }
}
