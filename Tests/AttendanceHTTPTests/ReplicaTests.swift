import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// Two `attendance serve` instances on one PostgreSQL database, each with its own connection pool
/// and its own caches, behave as one server (docs/SERVER.md, "Replicas"). Replicas share
/// PostgreSQL only: a SQLite file has one server process.
@Suite struct ReplicaTests {
    /// Two servers on one fresh PostgreSQL database.
    static func twoReplicas() async throws -> (LiveServer, LiveServer) {
        let store = try await Backend.postgresql.makeStore()
        let first = try await LiveServer.start(store.repository)
        let second = try await LiveServer.start(try await store.reopen())
        return (first, second)
    }

    /// Sends `attempt` every 20 ms for `seconds` after now: when each was sent (seconds after now)
    /// and whether it saw the change. The guarantee is about when a request is checked, which is
    /// after it is sent: every request sent `DirectoryWatch.trustSeconds` after the change returned
    /// must see it, however long the machine then takes to answer.
    static func sends(for seconds: Double = 1.2, _ attempt: () async throws -> Bool) async throws
        -> [(sentAfter: Double, sawIt: Bool)]
    {
        let start = ContinuousClock.now
        var results: [(Double, Bool)] = []
        while ContinuousClock.now - start < .seconds(seconds) {
            let sent = ContinuousClock.now - start
            let sawIt = try await attempt()
            results.append((Double(sent.components.attoseconds) / 1e18 + Double(sent.components.seconds), sawIt))
            try await Task.sleep(for: .milliseconds(20))
        }
        return results
    }

    /// The requests sent at least `DirectoryWatch.trustSeconds` after the change that did not see it.
    static func late(_ results: [(sentAfter: Double, sawIt: Bool)]) -> [Double] {
        results.filter { $0.sentAfter >= DirectoryWatch.trustSeconds && !$0.sawIt }.map(\.sentAfter)
    }

    @Test func fiftyIdenticalCheckInsSplitAcrossTwoReplicasMakeOneSession() async throws {
        let (a, b) = try await Self.twoReplicas()
        let ada = try await a.enrollEmployee()
        let body = try JSONSerialization.data(withJSONObject: LiveServer.checkIn(ada, session: "s-split"))
        let sameKey = try await withThrowingTaskGroup(of: HTTPAnswer.self) { group in
            for index in 0..<50 {
                let replica = index.isMultiple(of: 2) ? a : b
                group.addTask {
                    try await replica.send("POST", "/v1/attendance/check-in", token: ada.token, key: "same", body: body)
                }
            }
            return try await group.reduce(into: [HTTPAnswer]()) { $0.append($1) }
        }
        // One of them recorded it; the others replayed its answer or were told it is in flight.
        #expect(sameKey.allSatisfy { [201, 409].contains($0.status) }, "\(Set(sameKey.map(\.status)))")
        // The same answer. Its receipt is the same wherever it comes, but an answer whose row was not
        // in the tree within the receipt wait (a loaded machine) comes without it (LEDGER.md).
        let recorded = sameKey.filter { $0.status == 201 }
        #expect(Set(recorded.map(\.withoutReceipts)).count == 1, "\(recorded.map(\.text))")
        #expect(Set(recorded.flatMap(\.receipts)).count <= 1, "\(recorded.map(\.text))")
        let distinctKeys = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                let replica = index.isMultiple(of: 2) ? a : b
                group.addTask {
                    try await replica.send(
                        "POST", "/v1/attendance/check-in", token: ada.token, key: "key-\(index)", body: body
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(distinctKeys.allSatisfy { $0 == 200 }, "\(Set(distinctKeys))")
        for replica in [a, b] {
            let sessions = try await replica.send("GET", "/v1/admin/sessions").json["items"] as? [[String: Any]] ?? []
            #expect(sessions.map { $0["sessionKey"] as? String } == ["s-split"])
        }
        let history = try await b.send("GET", "/v1/admin/sessions/s-split/history").json
        let kinds = (history["entries"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        #expect(kinds == ["checkIn"])
        try await a.stop()
        try await b.stop()
    }

    @Test func aDeviceRevokedOnOneReplicaIsRefusedByTheOtherWithinOneSecond() async throws {
        let (a, b) = try await Self.twoReplicas()
        let ada = try await a.enrollEmployee()
        // The second replica has checked the token (and may keep it) before the revocation.
        for _ in 0..<3 { #expect(try await b.send("GET", "/v1/config", token: ada.token).status == 200) }
        #expect(try await a.send("POST", "/v1/admin/devices/\(ada.deviceId)/revoke").status == 200)
        let results = try await Self.sends { try await b.send("GET", "/v1/config", token: ada.token).status == 401 }
        #expect(Self.late(results).isEmpty, "honoured by requests sent \(Self.late(results)) s after the revocation")
        let refused = try await b.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "after", json: LiveServer.checkIn(ada))
        #expect(refused.status == 401 && refused.detail.contains("was revoked"))
        try await a.stop()
        try await b.stop()
    }

    @Test func anAPITokenRevokedOnOneReplicaIsRefusedByTheOtherWithinOneSecond() async throws {
        let (a, b) = try await Self.twoReplicas()
        // Issued and revoked through the first replica's database, as its console does.
        let token = try await RolesOverHTTPTests.token(a, .auditor)
        for _ in 0..<3 { #expect(try await b.send("GET", "/v1/admin/audit", token: token).status == 200) }
        let record = try #require(try await a.repository.apiTokens(accountId: nil).first)
        _ = try await APITokenService(repository: a.repository, environment: .live).revoke(
            id: record.id, by: nil, mayRevokeAny: true, actor: .server)
        let results = try await Self.sends { try await b.send("GET", "/v1/admin/audit", token: token).status == 401 }
        #expect(Self.late(results).isEmpty, "honoured by requests sent \(Self.late(results)) s after the revocation")
        try await a.stop()
        try await b.stop()
    }

    @Test func aSiteMovedToAnotherBeaconOnOneReplicaIsSeenByTheOtherWithinOneSecond() async throws {
        let (a, b) = try await Self.twoReplicas()
        let ada = try await a.enrollEmployee(major: 1)
        // The second replica resolves beacon major 1 to the site (and may keep that).
        let first = try await b.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "in-1",
            json: LiveServer.checkIn(ada, session: "s-1"))
        #expect(first.status == 201)
        let moved = try await a.send(
            "PUT", "/v1/admin/sites/\(ada.siteId)",
            json: [
                "name": "Site 1", "timeZone": "Europe/Berlin", "beaconUUID": "FDA50693-0000-0000-0000-290995101092",
                "major": 7,
            ])
        #expect(moved.status == 200, "\(moved.text)")
        var attempt = 0
        let results = try await Self.sends {
            attempt += 1
            let old = try await b.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "old-\(attempt)",
                json: LiveServer.checkIn(ada, session: "s-old-\(attempt)"))
            return old.status == 422
        }
        #expect(
            Self.late(results).isEmpty, "the old beacon was honoured by requests sent \(Self.late(results)) s after")
        let new = try await b.send(
            "POST", "/v1/attendance/check-in", token: ada.token, key: "in-7",
            json: LiveServer.checkIn(ada, session: "s-7", major: 7))
        #expect(new.status == 201 && new.json["siteId"] as? String == ada.siteId, "\(new.text)")
        try await a.stop()
        try await b.stop()
    }
}
