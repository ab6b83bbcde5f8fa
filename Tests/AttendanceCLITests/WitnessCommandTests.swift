import AttendanceModels
import AttendanceServer
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `attendance witness` against a running `attendance serve` that knows its key: it cosigns the
/// first checkpoint, cosigns a later one after checking the consistency proof, and refuses a
/// server whose tree doesn't extend what it cosigned, sending nothing.
@Suite struct WitnessCommandTests {
    static let token = "witness-test-admin-token-0123456789"

    static func request(_ port: Int, _ method: String, _ path: String, json: [String: Any]? = nil) async throws
        -> (Int, Data)
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Adds a site (ledger rows) and waits for a checkpoint larger than `size` that stays the newest
    /// for two sealing rounds (the server's own start-up rows may still be joining the tree);
    /// returns its size.
    static func grow(_ port: Int, beyond size: Int64, major: Int) async throws -> Int64 {
        let (status, _) = try await request(
            port, "POST", "/v1/admin/sites",
            json: [
                "name": "Site \(major)", "timeZone": "Europe/Berlin",
                "beaconUUID": "FDA50693-0000-0000-0000-290995101092", "major": major,
            ])
        #expect(status == 201)
        var seen: (size: Int64, since: ContinuousClock.Instant)?
        for _ in 0..<200 {
            let (status, body) = try await request(port, "GET", "/v1/ledger/checkpoint")
            if status == 200,
                let checkpoint = try? Checkpoint(
                    text: try SignedNote.parse(String(decoding: body, as: UTF8.self)).text),
                checkpoint.size > size
            {
                if let seen, seen.size == checkpoint.size {
                    if ContinuousClock.now - seen.since > .seconds(2) { return checkpoint.size }
                } else {
                    seen = (checkpoint.size, ContinuousClock.now)
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CancellationError()
    }

    static func witnessed(_ port: Int) async throws -> Int64? {
        let (_, body) = try await request(port, "GET", "/v1/ledger/witnesses")
        let list = try JSONSerialization.jsonObject(with: body) as? [[String: Any]]
        return (list?.first?["last"] as? [String: Any])?["treeSize"] as? Int64
    }

    @Test func aWitnessCosignsWhatExtendsItsLastAndRefusesAFork() async throws {
        let database = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let directory = database.directory
        let witness = try Cosigner.generate(name: "works-council.example/witness")
        let keyPath = directory.appendingPathComponent("witness.key").path
        try Data((witness.encoded + "\n").utf8).write(to: URL(fileURLWithPath: keyPath))
        let tokenPath = directory.appendingPathComponent("token").path
        try Data(Self.token.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let (server, port) = try await ServeCommandTests.start(
            database: database.path, environment: ["ATTENDANCE_ADMIN_TOKEN": Self.token],
            arguments: ["--witness-key", witness.verifier.encoded])
        let logKey = try #require(
            server.standardOutputSoFar.split(separator: "\n").first {
                $0.hasPrefix("Ledger checkpoints are signed by the note verifier key ")
            }?.split(separator: " ").last)
        let statePath = directory.appendingPathComponent("witness.state").path
        func run() async throws -> ChildProcess.Finished {
            try await ChildProcess(
                try builtExecutable("attendance"),
                [
                    "witness", "--server", "http://127.0.0.1:\(port)", "--log-key", String(logKey),
                    "--token-file", tokenPath, "--key", keyPath, "--state", statePath, "--interval", "0",
                ]
            ).finish()
        }

        let first = try await Self.grow(port, beyond: 0, major: 1)
        let cosigned = try await run()
        #expect(cosigned.status == 0, "\(cosigned.stdout) \(cosigned.stderr)")
        #expect(cosigned.stdout.contains("cosigned the checkpoint of \(first) rows"))
        #expect(try await Self.witnessed(port) == first)

        // A larger tree: cosigned after its consistency proof checks.
        let second = try await Self.grow(port, beyond: first, major: 2)
        let again = try await run()
        #expect(
            again.status == 0 && again.stdout.contains("cosigned the checkpoint of \(second) rows"), "\(again.stderr)")
        #expect(try await Self.witnessed(port) == second)

        // The witness remembers another tree of that size (as if the server had shown it a fork):
        // it refuses, exits 1, and cosigns nothing new.
        let ledgerKey = try LedgerKeyFile.load(path: directory.appendingPathComponent("attendance-ledger.key").path)
        let forked = Checkpoint(
            origin: ledgerKey.name, size: second, rootHash: MerkleTree.leafHash(Data("another history".utf8)))
        let state = try witness.cosign(try ledgerKey.sign(forked.text), time: UInt64(Date().timeIntervalSince1970))
        try Data(state.utf8).write(to: URL(fileURLWithPath: statePath))
        let refused = try await run()
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("witness: the log"), "\(refused.stderr)")
        #expect(try await Self.witnessed(port) == second)

        // A cosignature by a witness the server doesn't know is refused, naming what it expected.
        let stranger = try Cosigner.generate(name: "stranger.example/w")
        let (_, note) = try await Self.request(port, "GET", "/v1/ledger/checkpoint")
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/ledger/cosignatures")!)
        post.httpMethod = "POST"
        post.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
        post.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(try stranger.cosign(String(decoding: note, as: UTF8.self), time: 1).utf8)
        let (body, response) = try await URLSession.shared.data(for: post)
        #expect((response as? HTTPURLResponse)?.statusCode == 422)
        #expect(String(decoding: body, as: UTF8.self).contains("works-council.example/witness"))
        server.signal(SIGTERM)
        #expect(await server.finish().status == 0)
    }
}
