import AttendanceModels
import AttendanceServer
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `attendance serve` as an operator runs it: the token printed once, where it listens, one log
/// line per request, and a clean exit 0 on SIGTERM and SIGINT.
@Suite struct ServeCommandTests {
    static func temporaryDatabase() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("attendance.sqlite").path)
    }

    /// Starts the server on a free port and waits for its "Listening on" line.
    static func start(
        database: String, environment: [String: String] = [:], arguments: [String] = []
    ) async throws -> (ChildProcess, port: Int) {
        let child = try ChildProcess(
            try builtExecutable("attendance"), ["serve", "--port", "0", "--database", database] + arguments,
            environment: environment)
        for _ in 0..<300 {
            if let line = child.standardOutputSoFar.split(separator: "\n").first(where: {
                $0.hasPrefix("Listening on http://127.0.0.1:")
            }),
                let port = Int(line.dropFirst("Listening on http://127.0.0.1:".count).prefix { $0.isNumber })
            {
                return (child, port)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        child.killNow()
        let finished = await child.finish()
        Issue.record("serve did not start: \(finished.stdout) \(finished.stderr)")
        throw CancellationError()
    }

    static func get(_ port: Int, _ path: String, token: String? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func theFirstStartPrintsTheAdminTokenOnceAndSIGTERMExitsZero() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let (first, port) = try await Self.start(database: database.path)
        let tokenLine = try #require(
            first.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("Admin token (shown once") })
        let token = String(tokenLine.split(separator: " ").last ?? "")
        #expect(try await Self.get(port, "/health") == 200)
        #expect(try await Self.get(port, "/v1/admin/sites", token: token) == 200)
        #expect(try await Self.get(port, "/v1/admin/sites") == 401)
        first.signal(SIGTERM)
        let stopped = await first.finish()
        #expect(stopped.status == 0)
        #expect(stopped.reason == .exit)
        #expect(stopped.lines.last == "Stopped.")
        let requestLines = stopped.stderr.split(separator: "\n").filter { $0.contains("request_id=") }
        #expect(requestLines.count == 3)
        #expect(
            requestLines.contains {
                $0.contains("operation=listSites") && $0.contains("status=200") && $0.contains("duration_ms=")
            })
        #expect(!stopped.stderr.contains(token))

        // The second start keeps the stored token and prints none; SIGINT also exits 0.
        let (second, port2) = try await Self.start(database: database.path)
        #expect(try await Self.get(port2, "/v1/admin/sites", token: token) == 200)
        second.signal(SIGINT)
        let again = await second.finish()
        #expect(again.status == 0)
        #expect(!again.stdout.contains("Admin token"))
    }

    /// The ledger's signing key: made beside the database at the first start, readable by its owner
    /// only, its verifier key printed at every start and the same on the next.
    @Test func theLedgerKeyIsMadeOnceAndItsVerifierKeyPrinted() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let keyPath = database.directory.appendingPathComponent("attendance-ledger.key").path
        let (first, _) = try await Self.start(database: database.path)
        first.signal(SIGTERM)
        let stopped = await first.finish()
        #expect(stopped.stdout.contains("Ledger key created in \(keyPath)"))
        let verifierLine = try #require(
            stopped.lines.first { $0.hasPrefix("Ledger checkpoints are signed by the note verifier key ") })
        let verifier = try NoteVerifier(encoded: String(verifierLine.split(separator: " ").last ?? ""))
        #expect(try LedgerKeyFile.load(path: keyPath).verifier == verifier)
        let permissions = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let (second, _) = try await Self.start(database: database.path)
        second.signal(SIGTERM)
        let again = await second.finish()
        #expect(!again.stdout.contains("Ledger key created"))
        #expect(again.stdout.contains(verifier.encoded))
        // A key file that isn't one is refused, naming it.
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: keyPath))
        let bad = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--port", "0", "--database", database.path]
        ).finish()
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("'--ledger-key' is '\(keyPath)'"), "\(bad.stderr)")
    }

    @Test func aRequestInFlightWhenSIGTERMArrivesIsAnsweredBeforeTheExit() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let admin = "drain-test-admin-token-0123456789"
        let (child, port) = try await Self.start(
            database: database.path, environment: ["ATTENDANCE_ADMIN_TOKEN": admin])
        let employee = try await CrashRecoveryTests.send(
            port, "POST", "/v1/admin/employees", json: Data(#"{"name":"Ada"}"#.utf8), token: admin)
        let userId =
            (try JSONSerialization.jsonObject(with: employee.body) as? [String: Any])?["userId"] as? String ?? ""
        let device = try await CrashRecoveryTests.deviceToken(port, userId: userId, admin: admin)
        // 500 heartbeats for unknown sessions: each is stored (202) in its own durable transaction,
        // so the batch takes long enough to still be running when the signal comes.
        let now = ISO8601DateFormatter().string(from: Date())
        let events = (0..<500).map { index in
            #"{"idempotencyKey":"hb-\#(index)","type":"heartbeat","heartbeat":{"sessionKey":"s-\#(index)","ts":"\#(now)"}}"#
        }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/attendance/events")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(device)", forHTTPHeaderField: "Authorization")
        request.setValue("drain-batch", forHTTPHeaderField: "Idempotency-Key")
        // The signal waits until the server has committed part of the batch (the WAL file was
        // written after the send), not a fixed time: under a loaded CI machine 150 ms once passed
        // before the connection was even made, and the test raced the listener's close.
        func walWritten() -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: database.path + "-wal"))?[.modificationDate] as? Date
        }
        let walBefore = walWritten()
        let started = ContinuousClock.now
        let answer = Task { try await URLSession.shared.data(for: request) }
        for _ in 0..<2_000 where walWritten() == walBefore {
            try await Task.sleep(for: .milliseconds(5))
        }
        child.signal(SIGTERM)
        let signalled = ContinuousClock.now
        let (data, response) = try await answer.value
        let answered = ContinuousClock.now
        let stopped = await child.finish()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let results =
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 500 && results.allSatisfy { $0["status"] as? Int == 202 })
        #expect(stopped.status == 0)
        // The request was in flight when the signal came (so this checked a drain, not a race).
        #expect(answered > signalled, "the batch answered \(answered - started) after it was sent, before SIGTERM")
    }

    @Test func theEnvironmentTokenIsTheAdminToken() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let token = "operator-chosen-token-42-abcdef"
        let (child, port) = try await Self.start(
            database: database.path, environment: ["ATTENDANCE_ADMIN_TOKEN": token])
        #expect(child.standardOutputSoFar.contains("Admin token: the value of ATTENDANCE_ADMIN_TOKEN"))
        #expect(!child.standardOutputSoFar.contains(token))
        #expect(try await Self.get(port, "/v1/admin/employees", token: token) == 200)
        child.signal(SIGTERM)
        #expect(await child.finish().status == 0)
    }

    @Test func theAdminTokenCanComeFromAFile() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let token = "token-kept-in-a-file-0123456789"
        let file = database.directory.appendingPathComponent("admin.token").path
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let (child, port) = try await Self.start(database: database.path, arguments: ["--admin-token-file", file])
        #expect(child.standardOutputSoFar.contains("Admin token: the contents of \(file)"))
        #expect(!child.standardOutputSoFar.contains(token))
        #expect(try await Self.get(port, "/v1/admin/employees", token: token) == 200)
        child.signal(SIGTERM)
        #expect(await child.finish().status == 0)

        let both = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--database", database.path, "--admin-token-file", file],
            environment: ["ATTENDANCE_ADMIN_TOKEN": token]
        ).finish()
        #expect(both.status == 1)
        #expect(both.stderr.contains("ATTENDANCE_ADMIN_TOKEN and --admin-token-file are both set"))
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: file))
        let short = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--database", database.path, "--admin-token-file", file]
        ).finish()
        #expect(short.status == 1)
        #expect(
            short.stderr.contains(
                "--admin-token-file '\(file)' holds 5 characters; expected one line of at least 16 characters"))
    }

    @Test func badOptionsAndAMissingDirectoryAreClearErrors() async throws {
        let database = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let missing = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--database", "/no/such/dir/attendance.sqlite"]
        ).finish()
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains(
                "'--database' is '/no/such/dir/attendance.sqlite'; expected a file in an existing directory"))
        let format = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--log-format", "xml"]
        ).finish()
        #expect(format.status == 64)
        #expect(format.stderr.contains("--log-format is 'xml'; expected text or json"))
        let wait = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--receipt-wait", "60000"]
        ).finish()
        #expect(wait.status == 64)
        #expect(wait.stderr.contains("--receipt-wait is '60000'; expected 0 to 10000 milliseconds"))
        let short = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--database", database.path],
            environment: ["ATTENDANCE_ADMIN_TOKEN": "short"]
        ).finish()
        #expect(short.status == 1)
        #expect(
            short.stderr.contains(
                "ATTENDANCE_ADMIN_TOKEN is '(secret, 5 characters)'; expected at least 16 characters"))
        #expect(!short.stderr.contains("short"))
    }
}
