import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Logging
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

    /// Every answer to a device's event carries the receipt of the row it is, proved into the
    /// first checkpoint holding it: a replay is the same bytes; a batch's items carry theirs by key.
    @Test(arguments: Backend.allCases) func anEventsAnswerCarriesItsReceiptAndAReplayTheSame(
        backend: Backend
    ) async throws {
        // The sealer's timer is far off: the answer's own round puts the row in the tree.
        let signer = try NoteSigner.generate(name: "attendance.test/ledger")
        let live = try await LiveServer.start(
            try await backend.makeRepository(), ledgerSigner: signer, sealIntervalMilliseconds: 600_000)
        let ada = try await live.enrollEmployee(name: "Ada", major: 1)
        let checkIn = LiveServer.checkIn(ada, session: "s-r", ts: Date().addingTimeInterval(-900))
        let first = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "r-1", json: checkIn)
        #expect(first.status == 201, "\(first.text)")
        let key = signer.verifier
        let receipt = try #require(first.json["receipt"] as? [String: Any])
        try Self.expectProved(receipt, kind: "checkIn", device: ada.deviceId, key: key)
        #expect(first.json["sessionKey"] as? String == "s-r")
        let replay = try await live.send("POST", "/v1/attendance/check-in", token: ada.token, key: "r-1", json: checkIn)
        #expect(replay.status == 201 && replay.body == first.body)
        // The answer's receipt came from the sealer's round in memory; read from the database
        // (as for another replica's round, or an older event) it is the same.
        let read = await AnswerReceipts(
            repository: live.repository, recent: RecentTreeGrowths(), seal: {}, wait: .zero,
            logger: Logger(label: "test")
        ).receipts(
            device: DeviceID(ada.deviceId),
            events: [
                DeviceEventRef(
                    sessionKey: "s-r", kind: .checkIn, at: try RFC3339.parse(try #require(checkIn["ts"] as? String)))
            ])
        let stored = try #require(read.values.first)
        #expect(stored.checkpoint == receipt["checkpoint"] as? String)
        #expect(stored.receipt.entry == receipt["entry"] as? String)
        #expect(stored.receipt.proof.map { Data($0).base64EncodedString() } == receipt["proof"] as? [String])

        let now = Date()
        let items: [[String: Any]] = [
            ["idempotencyKey": "r-2", "type": "heartbeat",
             "heartbeat": ["sessionKey": "s-r", "ts": RFC3339Text.format(now.addingTimeInterval(-600))]],
            ["idempotencyKey": "r-3", "type": "heartbeat",
             "heartbeat": ["sessionKey": "s-r", "ts": RFC3339Text.format(now.addingTimeInterval(9_999))]],
            ["idempotencyKey": "r-4", "type": "checkOut",
             "checkOut": LiveServer.checkOut(session: "s-r", ts: now.addingTimeInterval(-300))],
        ]
        let batch = try await live.send(
            "POST", "/v1/attendance/events", token: ada.token, key: "b-r", json: ["events": items])
        #expect(batch.status == 200, "\(batch.text)")
        let statuses = (batch.json["results"] as? [[String: Any]])?.compactMap { $0["status"] as? Int }
        #expect(statuses == [200, 422, 200])
        let receipts = try #require(batch.json["receipts"] as? [[String: Any]])
        // The refused item (a time in the future) is no row and has no receipt.
        #expect(receipts.compactMap { $0["idempotencyKey"] as? String } == ["r-2", "r-4"])
        for (item, kind) in zip(receipts, ["heartbeat", "checkOut"]) {
            try Self.expectProved(
                try #require(item["receipt"] as? [String: Any]), kind: kind, device: ada.deviceId, key: key)
        }
        let again = try await live.send(
            "POST", "/v1/attendance/events", token: ada.token, key: "b-r", json: ["events": items])
        #expect(again.body == batch.body)
        try await live.stop()
    }

    /// The receipt's entry is the device's row of `kind`, and its proof leads to the root of its
    /// checkpoint, which verifies under the server's key.
    static func expectProved(_ receipt: [String: Any], kind: String, device: String, key: NoteVerifier) throws {
        let entry = try #require(receipt["entry"] as? String)
        let lines = entry.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == Substring(kind) && lines[4] == Substring("device:\(device)"))
        let checkpoint = try Checkpoint.open(try #require(receipt["checkpoint"] as? String), verifier: key)
        let index = try #require(receipt["leafIndex"] as? Int64)
        // The first checkpoint holding the row: the tree grew to it in the round the answer asked for.
        #expect(index < checkpoint.size)
        let proof = try #require(receipt["proof"] as? [String]).compactMap { Data(base64Encoded: $0).map(Array.init) }
        #expect(
            MerkleProof.verifyInclusion(
                leafHash: LedgerLeaf.hash(
                    eventId: try #require(receipt["rowId"] as? Int64), contentHash: SHA256.hex(entry)),
                index: index, size: checkpoint.size, proof: proof, root: checkpoint.rootHash))
    }
}
