import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `attendance serve` killed with SIGKILL in the middle of a batch: the batch is one transaction,
/// so after the restart its resend with the same key is processed once, every item once.
@Suite struct CrashRecoveryTests {
    static let admin = "crash-test-admin-token-0123456789"

    static func send(
        _ port: Int, _ method: String, _ path: String, key: String? = nil, json: Data? = nil, token: String = admin
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = json
        request.timeoutInterval = 120
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A device token for `userId`: an enrollment code issued with the admin token, redeemed.
    /// Attendance events come from devices; the admin token is refused on them.
    static func deviceToken(_ port: Int, userId: String, admin: String = admin) async throws -> String {
        let code = try await send(
            port, "POST", "/v1/admin/enrollment-codes", json: Data(#"{"userId":"\#(userId)"}"#.utf8), token: admin)
        let codeText = (try JSONSerialization.jsonObject(with: code.body) as? [String: Any])?["code"] as? String ?? ""
        let device = try await send(
            port, "POST", "/v1/devices/enroll", json: Data(#"{"code":"\#(codeText)","platform":"ios"}"#.utf8),
            token: admin)
        return (try JSONSerialization.jsonObject(with: device.body) as? [String: Any])?["deviceToken"] as? String ?? ""
    }

    /// Every stored session's key, page by page.
    static func sessionKeys(_ port: Int) async throws -> Set<String> {
        var keys: Set<String> = []
        var cursor = ""
        repeat {
            let page = try await send(
                port, "GET", "/v1/admin/sessions?limit=500" + (cursor.isEmpty ? "" : "&cursor=\(cursor)"))
            let object = try JSONSerialization.jsonObject(with: page.body) as? [String: Any] ?? [:]
            let items = object["items"] as? [[String: Any]] ?? []
            keys.formUnion(items.compactMap { $0["sessionKey"] as? String })
            cursor = object["nextCursor"] as? String ?? ""
        } while !cursor.isEmpty
        return keys
    }

    /// A site, an employee and an enrolled device on a new server; returns the user and device token.
    static func enrollOne(_ port: Int) async throws -> (userId: String, device: String) {
        let site = try await send(port, "POST", "/v1/admin/sites", json: Data("""
            {"name":"HQ","timeZone":"Europe/Berlin","beaconUUID":"FDA50693-0000-0000-0000-290995101092","major":1}
            """.utf8))
        let user = try await send(port, "POST", "/v1/admin/employees", json: Data(#"{"name":"Ada"}"#.utf8))
        #expect(site.status == 201 && user.status == 201)
        let userId = (try JSONSerialization.jsonObject(with: user.body) as? [String: Any])?["userId"] as? String ?? ""
        return (userId, try await deviceToken(port, userId: userId))
    }

    /// A check-in of `userId` for session `key`, ten minutes ago.
    static func checkIn(userId: String, key: String, at ts: String) -> Data {
        Data(
            (#"{"userId":"\#(userId)","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
                + #""ts":"\#(ts)","sessionKey":"\#(key)","source":"automatic","#
                + #""deviceMeta":{"deviceId":"d","platform":"ios"}}"#).utf8)
    }

    @Test(arguments: Backend.allCases, [0, 40, 120])
    func aBatchKilledMidwayIsProcessedOnceWhenResent(backend: Backend, delayMilliseconds: Int) async throws {
        let file = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let database = backend == .sqlite ? file.path : try await ThrowawayPostgres.shared.freshDatabaseURL()
        let environment = ["ATTENDANCE_ADMIN_TOKEN": Self.admin]
        let (first, port) = try await ServeCommandTests.start(database: database, environment: environment)
        let (userId, device) = try await Self.enrollOne(port)
        let ts = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-600))
        let events = (0..<500).map { index in
            #"{"idempotencyKey":"in-\#(index)","type":"checkIn","checkIn":{"userId":"\#(userId)","#
                + #""beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
                + #""ts":"\#(ts)","sessionKey":"s-\#(index)","#
                + #""source":"automatic","deviceMeta":{"deviceId":"d","platform":"ios"}}}"#
        }
        let batch = Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8)
        let inFlight = Task {
            try? await Self.send(port, "POST", "/v1/attendance/events", key: "crash-batch", json: batch, token: device)
        }
        try await Task.sleep(for: .milliseconds(delayMilliseconds))
        first.signal(SIGKILL)
        let answeredBeforeTheKill = await inFlight.value
        _ = first.finish()

        let (second, port2) = try await ServeCommandTests.start(database: database, environment: environment)
        let resend = try await Self.send(
            port2, "POST", "/v1/attendance/events", key: "crash-batch", json: batch, token: device)
        #expect(resend.status == 200)
        let results =
            (try JSONSerialization.jsonObject(with: resend.body) as? [String: Any])?["results"] as? [[String: Any]]
            ?? []
        #expect(results.count == 500)
        if let earlier = answeredBeforeTheKill, earlier.status == 200 {
            // Answered before the kill: the resend is its replay, byte for byte.
            #expect(resend.body == earlier.body)
        } else {
            // Not answered: nothing of it was kept, and the resend recorded every item now.
            #expect(
                results.allSatisfy { $0["status"] as? Int == 201 },
                "\(Set(results.compactMap { $0["status"] as? Int }))")
        }
        let sessions = try await Self.sessionKeys(port2).count
        #expect(sessions == 500)
        second.signal(SIGTERM)
        #expect(second.finish().status == 0)
    }

    /// Check-ins from eight clients at once, the server SIGKILLed at a different point in each of
    /// five rounds on the same database (on SQLite the check-ins commit in groups): every check-in
    /// answered 2xx before a kill is there after the restart, and the resend of every check-in
    /// attempted is answered 201 (a replay or recorded now), each session once.
    @Test(arguments: Backend.allCases)
    func checkInsAnsweredBeforeAKillUnderLoadSurviveIt(backend: Backend) async throws {
        let file = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: file.directory) }
        let database = backend == .sqlite ? file.path : try await ThrowawayPostgres.shared.freshDatabaseURL()
        let environment = ["ATTENDANCE_ADMIN_TOKEN": Self.admin]
        var (server, port) = try await ServeCommandTests.start(database: database, environment: environment)
        let (userId, device) = try await Self.enrollOne(port)
        let ts = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-600))
        var attempted: Set<String> = []
        var answered: Set<String> = []
        for (round, delay) in [150, 320, 90, 470, 240].enumerated() {
            let clients = (0..<8).map { client in
                Task { [port] () -> (attempted: [String], answered: [String]) in
                    var tried: [String] = []
                    var kept: [String] = []
                    for index in 0..<100_000 {
                        let key = "r\(round)-c\(client)-\(index)"
                        tried.append(key)
                        let body = Self.checkIn(userId: userId, key: key, at: ts)
                        guard
                            let reply = try? await Self.send(
                                port, "POST", "/v1/attendance/check-in", key: key, json: body, token: device)
                        else { break }
                        if reply.status == 201 { kept.append(key) } else { break }
                    }
                    return (tried, kept)
                }
            }
            try await Task.sleep(for: .milliseconds(delay))
            server.signal(SIGKILL)
            for client in clients {
                let (tried, kept) = await client.value
                attempted.formUnion(tried)
                answered.formUnion(kept)
            }
            _ = server.finish()
            (server, port) = try await ServeCommandTests.start(database: database, environment: environment)
            let stored = try await Self.sessionKeys(port)
            let lost = answered.subtracting(stored).sorted()
            #expect(lost.isEmpty, "answered 201 and lost after kill \(round + 1): \(lost)")
        }
        #expect(answered.count >= 40, "only \(answered.count) check-ins were answered before the kills")

        let keys = attempted.sorted()
        let resent = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<8 {
                group.addTask { [port] in
                    var statuses: [Int] = []
                    for key in stride(from: client, to: keys.count, by: 8).map({ keys[$0] }) {
                        let body = Self.checkIn(userId: userId, key: key, at: ts)
                        statuses.append(
                            try await Self.send(
                                port, "POST", "/v1/attendance/check-in", key: key, json: body, token: device
                            ).status)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(resent) == [201])
        #expect(try await Self.sessionKeys(port) == attempted)
        server.signal(SIGTERM)
        #expect(server.finish().status == 0)
    }
}
