import AttendanceHTTP
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two `attendance serve` on one PostgreSQL behind Debian's nginx with the shipped configuration
/// (`ReplicasBehindAProxyTests.proxy`): a second-factor code used through one replica is refused by
/// the other, and a live feed open when its replica is stopped is closed at once with its reconnect
/// hint and reconnects through the proxy to the replica still running.
@Suite(.serialized) struct ReplicasShareSecondFactorAndFeedTests {
    typealias Proxy = ReplicasBehindAProxyTests

    struct Pair {
        var database: String
        var directory: URL
        var key: String
        var servers: [ChildProcess]
        var ports: [Int]
        var proxyPort: Int
        var nginx: ChildProcess
        var ownerPassword: String
    }

    static func pair() async throws -> Pair {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.postgresql)
        let key = directory.appendingPathComponent("ledger.key").path
        let (first, portA) = try await Proxy.replica(database, key: key)
        let (second, portB) = try await Proxy.replica(database, key: key)
        let password = try #require(
            first.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("Console sign-in (shown once)") }?
                .split(separator: " ").last.map(String.init))
        let proxyPort = try Proxy.freePort()
        let nginx = try await Proxy.proxy(upstreams: [portA, portB], port: proxyPort, in: directory)
        return Pair(
            database: database, directory: directory, key: key, servers: [first, second], ports: [portA, portB],
            proxyPort: proxyPort, nginx: nginx, ownerPassword: password)
    }

    /// The sign-in form through the proxy: its answer's status and cookies.
    static func signIn(_ port: Int, password: String, code: String) async throws -> (status: Int, cookie: String) {
        let page = try await Proxy.request(port, "GET", "/console/sign-in")
        let csrf = page.body.components(separatedBy: #"name="csrf" value=""#).dropFirst().first?.prefix { $0 != "\"" }
        let answer = try await Proxy.request(
            port, "POST", "/console/sign-in", cookie: page.cookies.joined(separator: "; "),
            form: ["csrf": String(csrf ?? ""), "email": "owner@attendance.local", "password": password, "code": code])
        return (answer.status, answer.cookies.joined(separator: "; "))
    }

    static func signInPosts(_ log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("method=POST") && $0.contains("path=/console/sign-in") }.count
    }

    @Test func aSecondFactorCodeUsedThroughOneReplicaIsRefusedByTheOther() async throws {
        let pair = try await Self.pair()
        defer {
            pair.nginx.killNow()
            try? FileManager.default.removeItem(at: pair.directory)
        }
        // The owner turns the second factor on (here through the services, on the same database).
        let repository = try await PostgresRepository.connect(url: pair.database)
        defer { repository.shutdown() }
        let accounts = AccountService(repository: repository, codes: TOTPCodes(), environment: .live)
        let owner = try #require(try await repository.account(email: "owner@attendance.local"))
        let secret = accounts.newTOTPSecret()
        // Far from a 30 s step's end, so that both sign-ins below fall in one step.
        while Int(Date().timeIntervalSince1970) % 30 > 20 { try await Task.sleep(for: .milliseconds(500)) }
        let code = String(format: "%06d", TOTPCodes().code(secret: secret, at: Date()))
        try await accounts.enableTOTP(id: owner.id, secret: secret, code: code, actor: .server)

        // Round robin: the sign-in page and its form go to different replicas, and a /health
        // between the two attempts sends the second form to the replica the first did not reach.
        let first = try await Self.signIn(pair.proxyPort, password: pair.ownerPassword, code: code)
        _ = try await Proxy.request(pair.proxyPort, "GET", "/health")
        let again = try await Self.signIn(pair.proxyPort, password: pair.ownerPassword, code: code)
        for server in pair.servers { server.signal(SIGTERM) }
        var logs: [String] = []
        for server in pair.servers { logs.append(await server.finish().stderr) }
        #expect(logs.map(Self.signInPosts) == [1, 1], "each replica had one of the two sign-ins")
        #expect(first.status == 303, "the code signs in once")
        #expect(again.status == 401, "the same code on the other replica is refused: \(again.status)")
    }

    @Test func aLiveFeedIsClosedWhenItsReplicaStopsAndReconnectsToTheOther() async throws {
        var pair = try await Self.pair()
        defer {
            pair.nginx.killNow()
            for server in pair.servers { server.killNow() }
            try? FileManager.default.removeItem(at: pair.directory)
        }
        let signedIn = try await Self.signIn(pair.proxyPort, password: pair.ownerPassword, code: "")
        #expect(signedIn.status == 303)
        func feed() async throws -> ChildProcess {
            let curl = try ChildProcess(
                URL(fileURLWithPath: "/usr/bin/curl"),
                [
                    "-sN", "--max-time", "120", "-H", "Cookie: \(signedIn.cookie)",
                    "http://127.0.0.1:\(pair.proxyPort)/console/events",
                ])
            for _ in 0..<100 where !curl.standardOutputSoFar.contains(": connected") {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(curl.standardOutputSoFar.hasPrefix("retry: 2000\n: connected"), "\(curl.standardOutputSoFar)")
            return curl
        }
        let stream = try await feed()
        // Stop the replicas in turn until the one holding the feed has stopped: each stop must
        // take moments (the feed is closed, not waited for), and the feed must end with it.
        var ended = false
        for which in 0..<2 where !ended {
            let stopping = Date()
            pair.servers[which].signal(SIGTERM)
            let stopped = await pair.servers[which].finish()
            #expect(stopped.status == 0)
            #expect(Date().timeIntervalSince(stopping) < 10, "a stop waited on the open feed")
            for _ in 0..<30 where stream.isRunning { try await Task.sleep(for: .milliseconds(100)) }
            ended = !stream.isRunning
            if !ended {
                // Not this replica's feed: it comes back before the other goes.
                pair.servers[which] = try await Proxy.replica(pair.database, key: pair.key, port: pair.ports[which]).0
                #expect(try await ServeCommandTests.get(pair.ports[which], "/ready") == 200)
                try await Task.sleep(for: .seconds(3.5))  // nginx's fail_timeout for a refused server
            }
        }
        #expect(ended, "the feed did not end when its replica stopped")
        let finished = await stream.finish()
        #expect(finished.status == 0, "the stream was closed cleanly: curl \(finished.status)")
        // The browser reconnects after `retry`: through the proxy, to the replica still running.
        let again = try await feed()
        again.killNow()
        _ = await again.finish()
    }
}
