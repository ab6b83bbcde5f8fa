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

    /// A new database for `backend` (a SQLite file, or a database on the throwaway PostgreSQL), and
    /// the directory to remove afterwards.
    static func freshDatabase(_ backend: Backend) async throws -> (database: String, directory: URL) {
        let file = try ServeCommandTests.temporaryDatabase()
        let database = backend == .sqlite ? file.path : try await ThrowawayPostgres.shared.freshDatabaseURL()
        return (database, file.directory)
    }

    /// `attendance serve` on `database` with this suite's admin token.
    static func serve(_ database: String) async throws -> (ChildProcess, port: Int) {
        try await ServeCommandTests.start(database: database, environment: ["ATTENDANCE_ADMIN_TOKEN": admin])
    }

    static func tenMinutesAgo() -> String { ISO8601DateFormatter().string(from: Date().addingTimeInterval(-600)) }

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

    @Test(arguments: Backend.allCases, [0, 40, 120])
    func aBatchKilledMidwayIsProcessedOnceWhenResent(backend: Backend, delayMilliseconds: Int) async throws {
        let (database, directory) = try await Self.freshDatabase(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, port) = try await Self.serve(database)
        let (userId, device) = try await Self.enrollOne(port)
        let ts = Self.tenMinutesAgo()
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
        _ = await first.finish()

        let (second, port2) = try await Self.serve(database)
        let resend = try await Self.send(
            port2, "POST", "/v1/attendance/events", key: "crash-batch", json: batch, token: device)
        #expect(resend.status == 200)
        let results =
            (try JSONSerialization.jsonObject(with: resend.body) as? [String: Any])?["results"] as? [[String: Any]]
            ?? []
        #expect(results.count == 500)
        if let earlier = answeredBeforeTheKill, earlier.status == 200 {
            // Answered before the kill: the resend is its replay (byte for byte, or with receipts it lacked).
            #expect(ReceiptsInAnswers.isReplay(resend.body, of: earlier.body))
        } else {
            // Not answered: nothing of it was kept, and the resend recorded every item now.
            #expect(
                results.allSatisfy { $0["status"] as? Int == 201 },
                "\(Set(results.compactMap { $0["status"] as? Int }))")
        }
        let sessions = try await Self.sessionKeys(port2).count
        #expect(sessions == 500)
        second.signal(SIGTERM)
        #expect(await second.finish().status == 0)
    }
}
