import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Logging
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One answer, as the socket delivered it.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var array: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? [] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var detail: String { json["detail"] as? String ?? "" }
    func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }

    /// The answer without its ledger receipts (`ReceiptsInAnswers`).
    var withoutReceipts: String { ReceiptsInAnswers.withoutReceipts(body) }

    /// The answer's ledger receipts, each as canonical JSON text.
    var receipts: Set<String> { ReceiptsInAnswers.receipts(body) }

    /// Whether this answer is `first` replayed: its bytes, or with the receipts `first` lacked.
    func isReplay(of first: HTTPAnswer) -> Bool { ReceiptsInAnswers.isReplay(body, of: first.body) }
}

/// A real server on a loopback port, a real HTTP client (URLSession, as the device uses), and the
/// server's log lines captured in memory.
final class LiveServer: Sendable {
    static let adminToken = "test-admin-token-0123456789abcdef"
    let server: RunningServer
    let logs: LogCapture
    let session: URLSession

    var repository: any ServerRepository { server.repository }

    static func start(
        _ repository: any ServerRepository, limits: IngestLimits = IngestLimits(), logs: LogCapture = LogCapture(),
        ledgerSigner: NoteSigner = .ephemeral, sealIntervalMilliseconds: Int64 = 1_000,
        ledgerCheckIntervalSeconds: Int64 = 300
    ) async throws -> LiveServer {
        _ = try await AuthService(repository: repository, environment: .live).installAdminToken(configured: adminToken)
        let logger = Logger(label: "attendance.test") { _ in logs }
        let server = try await RunningServer.start(
            repository: repository,
            options: ServerOptions(
                port: 0, limits: limits, sealIntervalMilliseconds: sealIntervalMilliseconds,
                ledgerSigner: ledgerSigner, ledgerCheckIntervalSeconds: ledgerCheckIntervalSeconds),
            logger: logger,
            environment: .live)
        return LiveServer(server: server, logs: logs)
    }

    private init(server: RunningServer, logs: LogCapture) {
        self.server = server
        self.logs = logs
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        session = URLSession(configuration: configuration)
    }

    func stop() async throws { try await server.stop() }

    func send(
        _ method: String, _ path: String, token: String? = LiveServer.adminToken, key: String? = nil,
        json: Any? = nil, body: Data? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return HTTPAnswer(status: http.statusCode, headers: fields, body: data)
    }

    /// A site, an employee and an enrolled device, made through the admin API.
    struct Enrolled: Sendable {
        var siteId: String
        var userId: String
        var deviceId: String
        var token: String
    }

    func enrollEmployee(name: String = "Ada", major: Int = 1) async throws -> Enrolled {
        let sites = try await send("GET", "/v1/admin/sites").array
        let siteId: String
        if let existing = sites.first(where: { $0["major"] as? Int == major })?["siteId"] as? String {
            siteId = existing
        } else {
            let site = try await send(
                "POST", "/v1/admin/sites",
                json: [
                    "name": "Site \(major)", "timeZone": "Europe/Berlin",
                    "beaconUUID": "FDA50693-0000-0000-0000-290995101092", "major": major,
                ])
            siteId = site.json["siteId"] as? String ?? ""
        }
        let userId = try await send("POST", "/v1/admin/employees", json: ["name": name]).json["userId"] as? String ?? ""
        let code =
            try await send("POST", "/v1/admin/enrollment-codes", json: ["userId": userId]).json["code"] as? String ?? ""
        let enrollment = try await send(
            "POST", "/v1/devices/enroll", token: nil, json: ["code": code, "platform": "ios"]
        ).json
        return Enrolled(
            siteId: siteId, userId: userId, deviceId: enrollment["deviceId"] as? String ?? "",
            token: enrollment["deviceToken"] as? String ?? "")
    }

    /// Ada checked in at site 1 (session `s-ada`) and Bob at site 2 (`s-bob`): a manager of one site
    /// must see only its own.
    func adaAndBobOnTwoSites() async throws -> (ada: Enrolled, bob: Enrolled) {
        let ada = try await enrollEmployee(name: "Ada", major: 1)
        let bob = try await enrollEmployee(name: "Bob", major: 2)
        for (who, session, major) in [(ada, "s-ada", 1), (bob, "s-bob", 2)] {
            let answer = try await send(
                "POST", "/v1/attendance/check-in", token: who.token, key: session,
                json: LiveServer.checkIn(who, session: session, major: major))
            guard answer.status == 201 else {
                throw RawHTTP.Failure(description: "check-in \(session): \(answer.status) \(answer.text)")
            }
        }
        return (ada, bob)
    }

    static func checkIn(
        _ who: Enrolled, session: String = "s-1", ts: Date = Date().addingTimeInterval(-600), major: Int = 1
    ) -> [String: Any] {
        [
            "userId": who.userId, "beacon": ["uuid": "FDA50693-0000-0000-0000-290995101092", "major": major],
            "ts": RFC3339Text.format(ts),
            "sessionKey": session, "source": "automatic", "deviceMeta": ["deviceId": who.deviceId, "platform": "ios"],
        ]
    }

    static func checkOut(session: String = "s-1", ts: Date) -> [String: Any] {
        ["sessionKey": session, "ts": RFC3339Text.format(ts), "reason": "regionExit", "source": "automatic"]
    }
}

/// Whole-second RFC 3339 in UTC, as a device writes it.
enum RFC3339Text {
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }
}

/// Every log line the server writes, kept for the assertions (one per request, never a token).
final class LogCapture: LogHandler, Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        var rendered: String {
            message + " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private let lines = Mutex<[Line]>([])
    var all: [Line] { lines.withLock { $0 } }
    var requests: [Line] { all.filter { $0.message == "request" } }

    var logLevel: Logger.Level {
        get { .info }
        set {}
    }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
        lines.withLock { $0.append(Line(level: event.level, message: "\(event.message)", metadata: metadata)) }
    }
}
