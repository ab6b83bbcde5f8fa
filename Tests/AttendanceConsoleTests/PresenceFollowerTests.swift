import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import Foundation
import Logging
import Testing

@testable import AttendanceConsole
@testable import AttendanceServer

/// Replicas: a live page served by one server shows what another server on the same PostgreSQL
/// database committed (`PresenceFollower`), and the hub never sends a session state twice.
@Suite struct PresenceFollowerTests {
    static func presence(_ message: String) -> [[String: String]] {
        message.components(separatedBy: "event: presence\ndata: ").dropFirst().compactMap { chunk in
            let line = chunk.split(separator: "\n").first.map(String.init) ?? ""
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
    }

    /// Waits up to 5 s for the hub to have numbered `count` changes; false when it never did.
    static func hubReached(_ hub: PresenceHub, _ count: UInt64) async throws -> Bool {
        for _ in 0..<250 {
            if hub.sequence >= count { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aCheckInCommittedThroughAnotherServerReachesThisServersLivePages() async throws {
        let store = try await Backend.postgresql.makeStore()
        let other = store.repository
        let this = try await store.reopen()
        defer {
            other.shutdown()
            this.shutdown()
        }
        try await other.createSite(
            SiteRecord(
                id: "s1", name: "One", timeZone: "Europe/Berlin",
                beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)))
        try await other.createEmployee(EmployeeRecord(id: "ada", name: "Ada"))
        let hub = PresenceHub(
            repository: this, keepAlive: .seconds(3_600), flushInterval: .milliseconds(20), environment: .live)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let page = hub.subscribe(PresenceHub.Viewer(scope: .all, accountId: "acc", expiresAt: .distantFuture), after: 0)
        let follower = PresenceFollower(
            repository: this, hub: hub, logger: Logger(label: "test"), environment: .clock({ Date() }))
        var tail = LedgerTail(after: try await this.latestLedgerID())

        let arrived = Date().addingTimeInterval(-600)
        _ = try await other.checkIn(
            CheckInCommand(
                sessionKey: "k1", userId: "ada", siteId: "s1", deviceId: nil, at: arrived, source: .automatic,
                reason: nil, evidence: SessionEvidence()),
            now: Date())
        try await follower.follow(&tail)
        try #require(try await Self.hubReached(hub, 1), "the other server's check-in did not reach the hub")
        var events = page.events.makeAsyncIterator()
        let checkedIn = Self.presence(try #require(await events.next()))
        #expect(checkedIn.map { $0["session"] } == ["k1"] && checkedIn.first?["state"] == "in", "\(checkedIn)")

        // The same rows read again send nothing; the check-out then goes out alone.
        try await follower.follow(&tail)
        _ = try await other.apply(
            SessionEventCommand(
                kind: .checkOut, sessionKey: "k1", deviceId: nil, userId: "ada", at: arrived + 300,
                reason: "regionExit", source: .automatic),
            now: Date())
        try await follower.follow(&tail)
        try #require(try await Self.hubReached(hub, 2), "the other server's check-out did not reach the hub")
        let checkedOut = Self.presence(try #require(await events.next()))
        #expect(checkedOut.map { $0["state"] } == ["out"], "\(checkedOut)")
    }

    /// The hub's keep-alive (every 15 s by default) is pushed out of the way: on a loaded machine
    /// this test can take longer than that, and a keep-alive is an event without presence.
    @Test func aSessionStateSentAlreadyIsNotSentAgain() async throws {
        let repository = try await Backend.sqlite.makeRepository()
        defer { repository.shutdown() }
        let hub = PresenceHub(
            repository: repository, keepAlive: .seconds(3_600), flushInterval: .milliseconds(20), environment: .live)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let page = hub.subscribe(PresenceHub.Viewer(scope: .all, accountId: "acc", expiresAt: .distantFuture), after: 0)
        let at = Date(timeIntervalSince1970: 1_795_338_000)
        let session = SessionRecord(
            sessionKey: "k1", userId: "ada", siteId: "s1", deviceId: nil, checkInAt: at, checkOutAt: nil,
            checkOutReason: nil, lastSeenAt: at, source: .automatic)
        var later = session
        later.lastSeenAt = at + 60
        hub.sessionsChanged([session])
        try #require(try await Self.hubReached(hub, 1))
        var events = page.events.makeAsyncIterator()
        #expect(Self.presence(try #require(await events.next())).count == 1)
        // Told again (this server's ingest, then the follower reading the same change): skipped.
        hub.sessionsChanged([session])
        hub.sessionsChanged([later])
        try #require(try await Self.hubReached(hub, 2))
        let next = try #require(await events.next())
        #expect(Self.presence(next).count == 1)
        #expect(hub.sequence == 2)
    }
}
