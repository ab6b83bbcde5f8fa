import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `attendance serve`'s settings: a flag, else `ATTENDANCE_*`, else the settings file, else the
/// default; `--show-config` says which; anything that can't be used is refused naming where it came
/// from and its value (docs/SERVER.md, "Settings").
@Suite struct ServeSettingsTests {
    /// `attendance serve … --show-config`: its status, standard output and standard error.
    static func show(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int32, out: String, err: String) {
        let child = try ChildProcess(
            try builtExecutable("attendance"), ["serve"] + arguments + ["--show-config"], environment: environment)
        let finished = await child.finish()
        return (finished.status, finished.stdout, finished.stderr)
    }

    /// The line of `--show-config` for `key`, its columns squeezed to single spaces.
    static func line(_ output: String, _ key: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(key + " ") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    }

    static func settingsFile(_ json: String) throws -> (path: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("attendance.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return (path, directory)
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() async throws {
        let file = try Self.settingsFile(#"{"port": 9000, "logFormat": "json", "receiptWait": 0}"#)
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let environment = ["ATTENDANCE_PORT": "9100", "ATTENDANCE_CONFIG": file.path]

        let flag = try await Self.show(["--port", "9200"], environment: environment)
        #expect(flag.status == 0, "\(flag.err)")
        #expect(Self.line(flag.out, "port") == "port 9200 (--port)")
        let env = try await Self.show([], environment: environment)
        #expect(Self.line(env.out, "port") == "port 9100 (ATTENDANCE_PORT)")
        #expect(Self.line(env.out, "config") == "config \(file.path) (ATTENDANCE_CONFIG)")
        let fromFile = try await Self.show(["--config", file.path])
        #expect(Self.line(fromFile.out, "port") == "port 9000 ('port' in \(file.path))")
        #expect(Self.line(fromFile.out, "logFormat") == "logFormat json ('logFormat' in \(file.path))")
        #expect(Self.line(fromFile.out, "receiptWait") == "receiptWait 0 ('receiptWait' in \(file.path))")
        #expect(Self.line(fromFile.out, "host") == "host 127.0.0.1 (the default)")
        let none = try await Self.show([])
        #expect(Self.line(none.out, "port") == "port 8080 (the default)")
    }

    @Test func secretsAreNeverShown() async throws {
        let shown = try await Self.show(
            ["--database", "postgres://attendance:hunter2-hunter2@db.internal:5432/attendance"],
            environment: ["ATTENDANCE_ADMIN_TOKEN": "a-long-admin-token-1234"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(!shown.out.contains("hunter2") && !shown.out.contains("a-long-admin-token-1234"))
        #expect(
            Self.line(shown.out, "database")
                == "database postgres://attendance:***@db.internal:5432/attendance (--database)")
        #expect(Self.line(shown.out, "adminToken") == "adminToken (secret, 23 characters) (ATTENDANCE_ADMIN_TOKEN)")
        let short = try await Self.show([], environment: ["ATTENDANCE_ADMIN_TOKEN": "short-secret"])
        #expect(short.status == 1)
        #expect(
            short.err.contains(
                "ATTENDANCE_ADMIN_TOKEN is '(secret, 12 characters)'; expected at least 16 characters on one line"))
        #expect(!short.err.contains("short-secret"))
    }

    @Test func aValueThatCantBeUsedIsRefusedNamingWhereItCameFromAndWhatItIs() async throws {
        let file = try Self.settingsFile(#"{"receiptWait": 20000}"#)
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let cases: [([String], [String: String], String)] = [
            ([], ["ATTENDANCE_PORT": "eighty"], "ATTENDANCE_PORT is 'eighty'; expected 0 to 65535"),
            (["--port", "70000"], [:], "--port is '70000'; expected 0 to 65535"),
            (
                ["--config", file.path], [:],
                "'receiptWait' in \(file.path) is '20000'; expected 0 to 10000 milliseconds"
            ),
            ([], ["ATTENDANCE_LOG_LEVEL": "loud"], "ATTENDANCE_LOG_LEVEL is 'loud'; expected trace, debug, info"),
            (
                [], ["ATTENDANCE_IDEMPOTENCY_RETENTION_DAYS": "1"],
                "ATTENDANCE_IDEMPOTENCY_RETENTION_DAYS is '1'; expected at least 3 days"
            ),
            (["--tls-cert", "server.crt"], [:], "--tls-cert is set without its pair"),
            ([], ["ATTENDANCE_WITNESS_KEY": "nobody"], "ATTENDANCE_WITNESS_KEY is 'nobody'; expected a witness's"),
            (
                [], ["ATTENDANCE_PROT": "8080"],
                "the environment variable ATTENDANCE_PROT is not a setting of attendance serve"
            ),
            (["--config", "/nonexistent/attendance.json"], [:], "the settings file '/nonexistent/attendance.json'"),
        ]
        for (arguments, environment, expected) in cases {
            let refused = try await Self.show(arguments, environment: environment)
            // A flag's mistake is a usage error (64); a variable's or the file's, the settings' (1).
            let flagged = arguments.first.map { $0.hasPrefix("--") && $0 != "--config" } ?? false
            #expect(refused.status == (flagged ? 64 : 1), "\(arguments) \(environment): \(refused.status)")
            #expect(refused.err.contains(expected), "\(refused.err)")
            #expect(refused.out.isEmpty)
        }
    }

    @Test func aKeyOfTheFileThatIsNoSettingIsRefusedNotIgnored() async throws {
        let file = try Self.settingsFile(#"{"prot": 9000}"#)
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let refused = try await Self.show(["--config", file.path])
        #expect(refused.status == 1)
        #expect(refused.err.contains("'prot' in \(file.path) is not a setting of attendance serve; expected one of"))
        let notAnObject = try Self.settingsFile("[8080]")
        defer { try? FileManager.default.removeItem(at: notAnObject.directory) }
        let refusedArray = try await Self.show(["--config", notAnObject.path])
        #expect(refusedArray.err.contains("is not a JSON object"), "\(refusedArray.err)")
    }

    @Test func aServerRunsFromItsSettingsFileAlone() async throws {
        let database = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let token = database.directory.appendingPathComponent("admin.token").path
        try Data("a-token-kept-in-a-file-0001\n".utf8).write(to: URL(fileURLWithPath: token))
        let settings = database.directory.appendingPathComponent("attendance.json").path
        try Data(
            """
            {"port": 0, "database": "\(database.path)", "adminTokenFile": "\(token)", "logFormat": "json",
             "ownerEmail": "hr@example.com", "receiptWait": 500}
            """.utf8
        ).write(to: URL(fileURLWithPath: settings))
        let child = try ChildProcess(try builtExecutable("attendance"), ["serve", "--config", settings])
        var port: Int?
        for _ in 0..<300 where port == nil {
            port = child.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("Listening on http://") }
                .flatMap { Int($0.split(separator: ":").last?.prefix { $0.isNumber } ?? "") }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let bound = try #require(port, "\(child.standardOutputSoFar) \(child.standardErrorSoFar)")
        #expect(try await ServeCommandTests.get(bound, "/v1/admin/sites", token: "a-token-kept-in-a-file-0001") == 200)
        #expect(child.standardOutputSoFar.contains("Console sign-in (shown once): hr@example.com"))
        child.signal(SIGTERM)
        let stopped = await child.finish()
        #expect(stopped.status == 0)
        // JSON log lines, as the file says.
        #expect(stopped.stderr.split(separator: "\n").contains { $0.hasPrefix("{") && $0.contains("\"request_id\"") })
    }
}
