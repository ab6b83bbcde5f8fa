import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// API tokens act with their role over real HTTP, on both backends: the permission table refuses
/// what the role lacks, and a manager's token sees only its sites.
@Suite struct RolesOverHTTPTests {
    /// An account of `role` and an API token of it.
    static func token(_ live: LiveServer, _ role: Role, sites: [SiteID] = []) async throws -> String {
        let accounts = AccountService(
            repository: live.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .live
        )
        let made = try await accounts.add(
            email: "\(role.rawValue)@x.io", role: role, sites: sites, password: nil, actor: .server)
        return try await APITokenService(repository: live.repository, environment: .live)
            .issue(accountId: made.account.id, name: "test", role: nil, actor: .server).token
    }

    @Test(arguments: Backend.allCases) func eachRolesTokenCallsWhatItsRoleHolds(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "Ada", major: 1)
        let session = "roles-1"
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k1",
                json: LiveServer.checkIn(ada, session: session)
            ).status == 201)
        let auditor = try await Self.token(live, .auditor)
        let hr = try await Self.token(live, .hr)
        #expect(try await live.send("GET", "/v1/admin/audit", token: auditor).status == 200)
        let refused = try await live.send(
            "POST", "/v1/admin/sessions/\(session)/void", token: auditor, json: ["reason": "x"])
        #expect(refused.status == 403 && refused.detail.contains("the auditor role can't call 'voidSession'"))
        #expect(
            try await live.send("GET", "/v1/admin/timesheets?from=2026-11-01&to=2026-11-02", token: hr).status == 200)
        let site = try await live.send(
            "POST", "/v1/admin/sites", token: hr,
            json: [
                "name": "X", "timeZone": "UTC", "beaconUUID": "FDA50693-0000-0000-0000-290995101092", "major": 9,
            ])
        #expect(site.status == 403 && site.detail.contains("'manageSites'"))
        // Device operations stay the device's.
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: hr, key: "k2",
                json: LiveServer.checkIn(ada, session: "x")
            ).status == 403)
        // The log line names the account, never the token.
        #expect(live.logs.requests.contains { $0.metadata["caller"]?.hasPrefix("account:acc-") == true })
        #expect(!live.logs.all.contains { $0.rendered.contains(hr) })
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aManagersTokenSeesOnlyItsSites(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let (ada, bob) = try await live.adaAndBobOnTwoSites()
        let manager = try await Self.token(live, .manager, sites: [SiteID(ada.siteId)])
        let presence = try await live.send("GET", "/v1/admin/presence", token: manager)
        #expect(presence.status == 200 && presence.array.map { $0["sessionKey"] as? String } == ["s-ada"])
        #expect(try await live.send("GET", "/v1/admin/presence?siteId=\(bob.siteId)", token: manager).status == 403)
        // The directory (sites, people, devices) is not a manager's.
        #expect(try await live.send("GET", "/v1/admin/sites", token: manager).detail.contains("'readDirectory'"))
        #expect(try await live.send("GET", "/v1/admin/employees", token: manager).status == 403)
        #expect(try await live.send("GET", "/v1/admin/sessions/s-bob", token: manager).status == 403)
        #expect(try await live.send("GET", "/v1/admin/sessions/s-bob/history", token: manager).status == 403)
        #expect(try await live.send("GET", "/v1/admin/sessions/s-ada", token: manager).status == 200)
        let unscoped = try await live.send("GET", "/v1/admin/sessions", token: manager)
        #expect(unscoped.status == 403 && unscoped.detail.contains("'siteId'"))
        #expect(try await live.send("GET", "/v1/admin/sessions?siteId=\(ada.siteId)", token: manager).status == 200)
        #expect(
            try await live.send("GET", "/v1/admin/sessions?siteId=\(bob.siteId)&format=csv", token: manager).status
                == 403)
        // A request about Bob's session is neither listed nor decided by Ada's manager.
        let filed = try await live.send(
            "POST", "/v1/me/requests", token: bob.token,
            json: [
                "sessionKey": "s-bob", "checkOutAt": RFC3339Text.format(Date().addingTimeInterval(-60)),
                "reason": "forgot",
            ])
        let requestId = try #require(filed.json["requestId"] as? String, "\(filed.status) \(filed.text)")
        // Ada's request about her own session (no site named: it is the session's) is theirs.
        let adas = try await live.send(
            "POST", "/v1/me/requests", token: ada.token,
            json: [
                "sessionKey": "s-ada", "checkOutAt": RFC3339Text.format(Date().addingTimeInterval(-60)),
                "reason": "left by the back door",
            ])
        let adasId = try #require(adas.json["requestId"] as? String, "\(adas.status) \(adas.text)")
        let listed = try await live.send("GET", "/v1/admin/requests", token: manager).array
        #expect(listed.map { $0["requestId"] as? String } == [adasId])
        let refused = try await live.send("POST", "/v1/admin/requests/\(requestId)/approve", token: manager, json: [:])
        #expect(refused.status == 403 && refused.detail.contains("not assigned to this account"))
        #expect(
            try await live.send("POST", "/v1/admin/requests/\(adasId)/approve", token: manager, json: [:]).status == 200
        )
        #expect(try await live.send("POST", "/v1/admin/requests/\(requestId)/approve", json: [:]).status == 200)
        try await live.stop()
    }

    /// Revoked in the database by another process (no request of this server's made the change):
    /// refused within `DirectoryWatch.trustSeconds` (docs/SERVER.md, "Caches across replicas").
    @Test func aTokenRevokedElsewhereIsRefusedWithinHalfASecond() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        let token = try await Self.token(live, .auditor)
        #expect(try await live.send("GET", "/v1/admin/audit", token: token).status == 200)
        let record = try #require(try await live.repository.apiTokens(accountId: nil).first)
        _ = try await APITokenService(repository: live.repository, environment: .live).revoke(
            id: record.id, by: nil, mayRevokeAny: true, actor: .server)
        let results = try await ReplicaTests.sends {
            try await live.send("GET", "/v1/admin/audit", token: token).status == 401
        }
        #expect(ReplicaTests.late(results).isEmpty, "honoured by requests sent \(ReplicaTests.late(results)) s after")
        #expect(results.last?.sawIt == true)
        try await live.stop()
    }
}
