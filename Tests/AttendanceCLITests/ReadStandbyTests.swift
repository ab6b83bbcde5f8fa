import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `attendance serve --read-database`: a PostgreSQL hot standby made by `pg_basebackup -R` and
/// streaming from the primary takes the heavy reads while it keeps up, pages read there say as of
/// when, and a standby paused, behind or gone sends the reads back to the primary
/// (docs/OPERATIONS.md, "A standby for reads").
@Suite(.serialized) struct ReadStandbyTests {
    static let asOfBanner = #"id="read-as-of""#

    /// Signs the owner in through the console's form; the session's cookie.
    static func signIn(_ port: Int, password: String) async throws -> String {
        let page = try await ReplicasBehindAProxyTests.request(port, "GET", "/console/sign-in")
        let csrf = page.body.components(separatedBy: #"name="csrf" value=""#).dropFirst().first?.prefix { $0 != "\"" }
        let answer = try await ReplicasBehindAProxyTests.request(
            port, "POST", "/console/sign-in", cookie: page.cookies.joined(separator: "; "),
            form: ["csrf": String(csrf ?? ""), "email": "owner@attendance.local", "password": password, "code": ""])
        #expect(answer.status == 303, "sign-in answered \(answer.status): \(answer.body.prefix(300))")
        return answer.cookies.joined(separator: "; ")
    }

    static func psql(_ url: String, _ sql: String) async throws {
        try await ThrowawayPostgres.offThePool {
            let run = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["psql", url, "-v", "ON_ERROR_STOP=1", "-qc", sql])
            guard run.status == 0 else { throw Spawn.Failure(description: "psql exited \(run.status): \(run.stderr)") }
        }
    }

    @Test func theStandbyTakesTheListsWhileItKeepsUpAndThePrimaryWhenItFallsBehind() async throws {
        let directory = try ServeCommandTests.temporaryDatabase().directory
        defer { try? FileManager.default.removeItem(at: directory) }
        let servers = try await ThrowawayPostgres.primaryWithStandby()
        let (database, standbyURL) = (servers.primary, servers.standby)
        var standbyStopped = false
        defer {
            for (index, server) in servers.directories.enumerated() where index > 0 || !standbyStopped {
                try? ThrowawayPostgres.stopNow(server)
            }
        }
        let maxLag = 8
        let (server, port) = try await ServeCommandTests.start(
            database: database, environment: ["ATTENDANCE_ADMIN_TOKEN": CrashRecoveryTests.admin],
            arguments: [
                "--ledger-key", directory.appendingPathComponent("ledger.key").path,
                "--read-database", standbyURL, "--read-max-lag-seconds", String(maxLag),
            ])
        let password = try #require(
            server.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("Console sign-in (shown once)") }?
                .split(separator: " ").last.map(String.init))
        #expect(server.standardOutputSoFar.contains("Heavy reads go to the standby at"))
        let (userId, device) = try await CrashRecoveryTests.enrollOne(port)
        #expect(
            try await ReplicasBehindAProxyTests.checkIn(port, userId: userId, device: device, session: "first") == 201)
        let cookie = try await Self.signIn(port, password: password)
        func sessions() async throws -> String {
            let page = try await ReplicasBehindAProxyTests.request(port, "GET", "/console/sessions", cookie: cookie)
            #expect(page.status == 200)
            return page.body
        }

        // Streaming: the first session reaches the standby within moments, and the page says so.
        var page = ""
        for _ in 0..<100 {
            page = try await sessions()
            if page.contains(Self.asOfBanner), page.contains("first") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(page.contains(Self.asOfBanner) && page.contains("first"), "\(page.prefix(2_000))")

        // Replay paused: a new session is on the primary only. Read at once, the page comes from
        // the standby (within its bound, without the new session, saying as of when); once the
        // standby is further behind than the bound, from the primary, with it and without the note.
        try await Self.psql(standbyURL, "SELECT pg_wal_replay_pause()")
        let paused = Date()
        #expect(
            try await ReplicasBehindAProxyTests.checkIn(port, userId: userId, device: device, session: "second") == 201)
        page = try await sessions()
        let readWithin = Date().timeIntervalSince(paused)
        #expect(readWithin < Double(maxLag) - 2, "the page was read \(readWithin) s after the pause")
        #expect(page.contains(Self.asOfBanner), "read from the standby within its bound")
        #expect(!page.contains("second"), "the standby has not replayed the new session")
        try await Task.sleep(for: .seconds(Double(maxLag) + 1.5))
        page = try await sessions()
        #expect(!page.contains(Self.asOfBanner), "further behind than \(maxLag) s: read from the primary")
        #expect(page.contains("second"))
        let metrics = try await ReplicasBehindAProxyTests.request(port, "GET", "/metrics").body
        let lag = metrics.split(separator: "\n").first { $0.hasPrefix("read_standby_lag_seconds ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
        #expect((lag ?? 0) > Double(maxLag), "\(String(describing: lag))")

        // Replay resumed: the standby catches up and takes the reads again.
        try await Self.psql(standbyURL, "SELECT pg_wal_replay_resume()")
        for _ in 0..<100 {
            page = try await sessions()
            if page.contains(Self.asOfBanner) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(page.contains(Self.asOfBanner) && page.contains("second"))

        // The standby stopped: every read goes to the primary, and the server says so once.
        try await ThrowawayPostgres.stop(servers.directories[0])
        standbyStopped = true
        try await Task.sleep(for: .seconds(1.5))
        page = try await sessions()
        #expect(!page.contains(Self.asOfBanner) && page.contains("second"))
        let audit = try await ReplicasBehindAProxyTests.request(port, "GET", "/console/audit", cookie: cookie)
        #expect(audit.status == 200 && !audit.body.contains(Self.asOfBanner))
        let timesheets = try await CrashRecoveryTests.send(
            port, "GET", "/v1/admin/timesheets?from=2026-01-01&to=2026-01-31")
        #expect(timesheets.status == 200)
        server.signal(SIGTERM)
        let stopped = await server.finish()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("the read standby did not answer; heavy reads go to the primary"))
    }

    @Test func aStandbyBesideASQLiteFileIsRefusedNamingBoth() async throws {
        let file = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let child = try ChildProcess(
            try builtExecutable("attendance"),
            ["serve", "--database", file.path, "--read-database", "postgres://a@127.0.0.1:1/b", "--show-config"])
        let finished = await child.finish()
        #expect(finished.status == 64, "a usage error: the flags given cannot go together")
        #expect(
            finished.stderr.contains("--read-database is set but --database is a SQLite file"), "\(finished.stderr)")
    }
}
