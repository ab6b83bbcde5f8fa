import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Two `attendance serve` on one PostgreSQL behind nginx from Debian, configured by the
/// `deploy/docker/nginx.conf` an operator ships (its servers and port pointed at this test's):
/// the sign-in throttle counts across the replicas, and restarting each replica in turn under a
/// stream of check-ins fails none of them (docs/OPERATIONS.md, "Replicas and rolling restarts").
@Suite(.serialized) struct ReplicasBehindAProxyTests {
    static let admin = CrashRecoveryTests.admin
    static let shippedConfig = MonitoringTests.root.appendingPathComponent("deploy/docker/nginx.conf")

    /// A port nothing listens on now (the kernel's choice for a socket bound to port 0).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// nginx in the foreground, one process, everything it writes in `directory`, serving the
    /// shipped site configuration with its two servers at `upstreams` and listening on `port`.
    static func proxy(upstreams: [Int], port: Int, in directory: URL) async throws -> ChildProcess {
        var site = try String(contentsOf: shippedConfig, encoding: .utf8)
        site = site.replacingOccurrences(of: "attendance-1:8080", with: "127.0.0.1:\(upstreams[0])")
        site = site.replacingOccurrences(of: "attendance-2:8080", with: "127.0.0.1:\(upstreams[1])")
        site = site.replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(port);")
        #expect(site.contains("127.0.0.1:\(upstreams[1])") && site.contains("listen 127.0.0.1:\(port);"))
        let prefix = directory.path
        try Data(site.utf8).write(to: directory.appendingPathComponent("site.conf"))
        let main = """
            daemon off;
            master_process off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/nginx-error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                include \(prefix)/site.conf;
            }
            """
        try Data(main.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
        let nginx = try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/nginx"), ["-p", prefix, "-c", "\(prefix)/nginx.conf"])
        for _ in 0..<100 {
            if (try? await ServeCommandTests.get(port, "/health")) == 200 { return nginx }
            try await Task.sleep(for: .milliseconds(100))
        }
        nginx.killNow()
        let finished = await nginx.finish()
        Issue.record("nginx did not start: \(finished.stderr)")
        throw CancellationError()
    }

    /// A replica on `database` with the shared admin token and ledger key, on `port` (0: any).
    static func replica(_ database: String, key: String, port: Int = 0) async throws -> (ChildProcess, port: Int) {
        try await ServeCommandTests.start(
            database: database, environment: ["ATTENDANCE_ADMIN_TOKEN": admin],
            arguments: ["--ledger-key", key] + (port == 0 ? [] : ["--port", String(port)]))
    }

    /// A session that hands back a redirect as it came (a sign-in's 303 and its cookie).
    /// Cookies are the caller's: none stored, none added.
    static let noRedirects: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        // Eight attempts at once are eight connections (the default holds six, the rest wait).
        configuration.httpMaximumConnectionsPerHost = 16
        return URLSession(configuration: configuration, delegate: RedirectsRefused(), delegateQueue: nil)
    }()

    /// A request through the proxy without URLSession's cookie store or its following of redirects;
    /// the answer's status, its cookies and its body.
    static func request(
        _ port: Int, _ method: String, _ path: String, cookie: String? = nil, form: [String: String]? = nil
    ) async throws -> (status: Int, cookies: [String], body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            request.httpBody = Data(
                form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
                    .joined(separator: "&").utf8)
        }
        let (data, response) = try await noRedirects.data(for: request)
        let http = response as? HTTPURLResponse
        let cookies = (http?.value(forHTTPHeaderField: "Set-Cookie") ?? "").split(separator: ",").compactMap {
            $0.split(separator: ";").first.map { String($0).trimmingCharacters(in: .whitespaces) }
        }.filter { $0.contains("=") }
        return (http?.statusCode ?? 0, cookies, String(decoding: data, as: UTF8.self))
    }

    /// One check-in of a new session through the proxy; the answer's status.
    static func checkIn(_ port: Int, userId: String, device: String, session: String) async throws -> Int {
        let body =
            #"{"userId":"\#(userId)","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
            + #""ts":"\#(CrashRecoveryTests.tenMinutesAgo())","sessionKey":"\#(session)","#
            + #""source":"automatic","deviceMeta":{"deviceId":"d","platform":"ios"}}"#
        return try await CrashRecoveryTests.send(
            port, "POST", "/v1/attendance/check-in", key: "in-\(session)", json: Data(body.utf8), token: device
        ).status
    }

    @Test func aSecondReplicaGivesNoSecondAllowanceOfPasswords() async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.postgresql)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("ledger.key").path
        let (first, portA) = try await Self.replica(database, key: key)
        let (second, portB) = try await Self.replica(database, key: key)
        let proxyPort = try Self.freePort()
        let nginx = try await Self.proxy(upstreams: [portA, portB], port: proxyPort, in: directory)
        defer { nginx.killNow() }

        // Eight wrong passwords, each on a form of its own (its token is spent by the attempt),
        // fetched first, then sent at once: the proxy takes turns, four to each replica. An attempt
        // is counted when it starts (before its password is checked), so the five that count first
        // are refused (401) and the other three, a moment later, throttled (429) for the second
        // the sixth failure must wait. Counted per replica, each would have seen four: no 429.
        var forms: [(cookie: String, csrf: String)] = []
        for _ in 0..<8 {
            let page = try await Self.request(proxyPort, "GET", "/console/sign-in")
            let csrf = page.body.components(separatedBy: #"name="csrf" value=""#).dropFirst().first?
                .prefix { $0 != "\"" }
            forms.append((page.cookies.joined(separator: "; "), String(csrf ?? "")))
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for form in forms {
                group.addTask {
                    try await Self.request(
                        proxyPort, "POST", "/console/sign-in", cookie: form.cookie,
                        form: [
                            "csrf": form.csrf, "email": "owner@attendance.local", "password": "not-the-password",
                            "code": "",
                        ]
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        first.signal(SIGTERM)
        second.signal(SIGTERM)
        let logs = [await first.finish().stderr, await second.finish().stderr]
        // The proxy spread the attempts over both replicas.
        for log in logs {
            let posts = log.split(separator: "\n").filter {
                $0.contains("method=POST") && $0.contains("path=/console/sign-in")
            }
            #expect(posts.count >= 3, "each replica had its share of the attempts: \(posts.count)")
        }
        #expect(statuses.filter { $0 == 401 }.count == 5, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count == 3, "\(statuses)")
    }

    @Test func restartingEachReplicaInTurnUnderLoadFailsNoRequest() async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.postgresql)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("ledger.key").path
        let startedA = try await Self.replica(database, key: key)
        let startedB = try await Self.replica(database, key: key)
        var (first, second) = (startedA.0, startedB.0)
        let (portA, portB) = (startedA.port, startedB.port)
        let proxyPort = try Self.freePort()
        let nginx = try await Self.proxy(upstreams: [portA, portB], port: proxyPort, in: directory)
        defer { nginx.killNow() }
        let (userId, device) = try await CrashRecoveryTests.enrollOne(proxyPort)

        // Eight phones, each sending its next check-in when the last is answered.
        let tally = Tally()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for phone in 0..<8 {
                    group.addTask {
                        var index = 0
                        while !tally.stop.load(ordering: .relaxed) {
                            let session = "p\(phone)-\(index)"
                            do {
                                let status = try await Self.checkIn(
                                    proxyPort, userId: userId, device: device, session: session)
                                if status != 201 { tally.failures.withLock { $0.append("\(session): \(status)") } }
                            } catch {
                                tally.failures.withLock { $0.append("\(session): \(error)") }
                            }
                            tally.sent.add(1, ordering: .relaxed)
                            index += 1
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(1))
        // The roll: each replica stopped (SIGTERM: in-flight requests answered), started again on
        // its port, and taking the proxy's requests again (nginx tries a refused server again
        // after its fail_timeout) before the next one goes.
        for which in 0..<2 {
            let (process, port) = which == 0 ? (first, portA) : (second, portB)
            let sentBefore = tally.sent.load(ordering: .relaxed)
            process.signal(SIGTERM)
            #expect(await process.finish().status == 0)
            let restarted = try await Self.replica(database, key: key, port: port).0
            #expect(try await ServeCommandTests.get(port, "/ready") == 200)
            var serving = false
            for _ in 0..<200 where !serving {
                serving = restarted.standardErrorSoFar.contains("path=/v1/attendance/check-in")
                if !serving { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(serving, "the proxy sent the restarted replica no check-in within 20 s")
            // The phones kept sending while this replica was stopped and restarted.
            #expect(tally.sent.load(ordering: .relaxed) > sentBefore)
            if which == 0 { first = restarted } else { second = restarted }
        }
        tally.stop.store(true, ordering: .relaxed)
        await load.value
        first.signal(SIGTERM)
        second.signal(SIGTERM)
        _ = await first.finish()
        _ = await second.finish()
        let failed = tally.failures.withLock { $0 }
        let total = tally.sent.load(ordering: .relaxed)
        print("rolling restart: \(total) check-ins through the proxy, \(failed.count) failed")
        #expect(total > 0)
        let proxyLog = (try? String(contentsOf: directory.appendingPathComponent("nginx-error.log"), encoding: .utf8))
        #expect(failed.count == 0, "the first failures: \(failed.prefix(10)); nginx: \(proxyLog?.prefix(3_000) ?? "")")
    }
}

/// Refuses every redirect: the answer is the 3xx itself.
final class RedirectsRefused: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// What the phones of the rolling-restart test sent and what failed, shared by their tasks.
private final class Tally: Sendable {
    let failures = Mutex<[String]>([])
    let sent = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}
