import AttendanceModels
import AttendanceServerTestSupport
import Foundation
import Testing

@testable import AttendanceConsole
@testable import AttendanceServer

/// The live feed: a change reaches the pages that may see its site, in order, and changes that
/// arrive while a send is under way go together.
@Suite struct PresenceHubTests {
    func session(_ key: String, site: SiteID, user: UserID, out: Bool = false) -> SessionRecord {
        let at = Date(timeIntervalSince1970: 1_795_338_000)
        return SessionRecord(
            sessionKey: SessionKey(key), userId: user, siteId: site, deviceId: nil, checkInAt: at,
            checkOutAt: out ? at + 3_600 : nil, checkOutReason: nil, lastSeenAt: at, source: .automatic)
    }

    @Test func aChangeReachesThePagesOfItsSiteOnly() async throws {
        let repository = try await Backend.sqlite.makeRepository()
        defer { repository.shutdown() }
        try await repository.createSite(
            SiteRecord(
                id: "s1", name: "One", timeZone: "Europe/Berlin",
                beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)),
            audit: nil)
        try await repository.createEmployee(EmployeeRecord(id: "ada", name: "<Ada>"), audit: nil)
        let hub = PresenceHub(
            repository: repository, flushInterval: .milliseconds(200),
            clock: { Date(timeIntervalSince1970: 1_795_338_060) })
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let everyone = hub.subscribe(scope: .all)
        let otherSite = hub.subscribe(scope: .only(["s2"]))
        hub.sessionsChanged([session("k1", site: "s1", user: "ada")])
        var pages = everyone.events.makeAsyncIterator()
        let first = try #require(await pages.next())
        #expect(first.hasPrefix("event: presence\ndata: {"))
        let json =
            try JSONSerialization.jsonObject(with: Data(first.split(separator: "\n")[1].dropFirst(6).utf8))
            as? [String: String]
        #expect(
            json == [
                "site": "s1", "session": "k1", "user": "ada", "state": "in", "name": "<Ada>",
                "since": "2026-11-22 10:00", "confidence": "confirmed",
            ])
        // Two changes during the pause after a send go out together, in order.
        hub.sessionsChanged([session("k2", site: "s1", user: "ada")])
        hub.sessionsChanged([session("k1", site: "s1", user: "ada", out: true)])
        let second = try #require(await pages.next())
        #expect(second.components(separatedBy: "event: presence").count == 3)
        #expect(second.range(of: "\"k2\"")!.lowerBound < second.range(of: "\"state\":\"out\"")!.lowerBound)
        hub.unsubscribe(otherSite.id)
        var other = otherSite.events.makeAsyncIterator()
        #expect(await other.next() == nil)  // nothing of site s1 reached it before it closed
        #expect(hub.subscriberCount == 1)
    }
}
