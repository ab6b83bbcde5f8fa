import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
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

    func viewer(_ scope: SiteScope, account: AccountID = "acc-1", expires: Date = .distantFuture) -> PresenceHub.Viewer
    {
        PresenceHub.Viewer(scope: scope, accountId: account, expiresAt: expires)
    }

    func hub(keepAlive: Duration = .seconds(15)) async throws -> (PresenceHub, any ServerRepository) {
        let repository = try await Backend.sqlite.makeRepository()
        try await repository.createSite(
            SiteRecord(
                id: "s1", name: "One", timeZone: "Europe/Berlin",
                beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)),
            audit: nil)
        try await repository.createEmployee(EmployeeRecord(id: "ada", name: "<Ada>"), audit: nil)
        let hub = PresenceHub(
            repository: repository, keepAlive: keepAlive, flushInterval: .milliseconds(500),
            environment: .clock({ Date(timeIntervalSince1970: 1_795_338_060) }))
        return (hub, repository)
    }

    /// The live pages an account holds are counted, for the cap on them (`streamsPerAccount`).
    @Test func anAccountsLivePagesAreCounted() async throws {
        let (hub, repository) = try await hub()
        defer { repository.shutdown() }
        let pages = (0..<3).map { _ in hub.subscribe(viewer(.all, account: "acc-1"), after: hub.sequence) }
        let other = hub.subscribe(viewer(.all, account: "acc-2"), after: hub.sequence)
        #expect(hub.streams(of: "acc-1") == 3)
        #expect(hub.streams(of: "acc-2") == 1)
        hub.unsubscribe(pages[0].id)
        hub.unsubscribe(other.id)
        #expect(hub.streams(of: "acc-1") == 2)
        #expect(hub.streams(of: "acc-2") == 0)
    }

    @Test func aChangeReachesThePagesOfItsSiteOnly() async throws {
        // No keep-alive comment in this test's life, however long a loaded machine makes it: the
        // other site's page must get nothing at all.
        let (hub, repository) = try await hub(keepAlive: .seconds(3_600))
        defer { repository.shutdown() }
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let everyone = hub.subscribe(viewer(.all), after: hub.sequence)
        let otherSite = hub.subscribe(viewer(.only(["s2"])), after: hub.sequence)
        try await Task.sleep(for: .milliseconds(50))
        hub.sessionsChanged([session("k1", site: "s1", user: "ada")])
        var pages = everyone.events.makeAsyncIterator()
        let first = try #require(await pages.next())
        #expect(first.hasPrefix("event: presence\ndata: {"))
        let data = Data(first.split(separator: "\n")[1].dropFirst(6).utf8)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: String]
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

    @Test func aPageGetsWhatChangedBetweenItsRenderAndItsStream() async throws {
        let (hub, repository) = try await hub()
        defer { repository.shutdown() }
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let rendered = hub.sequence
        hub.sessionsChanged([session("k1", site: "s1", user: "ada")])  // no page open yet
        try await Task.sleep(for: .milliseconds(50))
        let page = hub.subscribe(viewer(.all), after: rendered)
        var events = page.events.makeAsyncIterator()
        #expect(try #require(await events.next()).contains("\"session\":\"k1\""))
        // A page rendered before more changes than are kept starts again from the page.
        for index in 0..<(PresenceHub.replayLimit + 1) {
            hub.sessionsChanged([session("x\(index)", site: "s1", user: "ada")])
        }
        try await Task.sleep(for: .milliseconds(300))
        let late = hub.subscribe(viewer(.all), after: rendered)
        var lateEvents = late.events.makeAsyncIterator()
        #expect(await lateEvents.next() == "event: reload\ndata: {}\n\n")
    }

    @Test func anAccountsStreamsEndWhenItIsSignedOutOrItsSignInExpires() async throws {
        let (hub, repository) = try await hub(keepAlive: .milliseconds(100))
        defer { repository.shutdown() }
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let ada = hub.subscribe(viewer(.all, account: "acc-ada"), after: hub.sequence)
        let bob = hub.subscribe(viewer(.all, account: "acc-bob"), after: hub.sequence)
        // The hub's clock is 2026-11-22T09:01Z: a sign-in that ended a minute ago is dropped at the next keep-alive.
        let expired = hub.subscribe(
            viewer(.all, account: "acc-old", expires: Date(timeIntervalSince1970: 1_795_338_000)), after: hub.sequence)
        try await Task.sleep(for: .milliseconds(50))
        hub.disconnect(accountId: "acc-ada")
        var adaEvents = ada.events.makeAsyncIterator()
        #expect(await adaEvents.next() == nil)
        hub.dropExpired()  // what every keep-alive does
        #expect(hub.subscriberCount == 1)  // Bob's
        var expiredEvents = expired.events.makeAsyncIterator()
        #expect(await expiredEvents.next() == nil)
        var bobEvents = bob.events.makeAsyncIterator()
        #expect(await bobEvents.next() == ": keep-alive\n\n")  // the keep-alive (every 100 ms here) still reaches Bob
        hub.unsubscribe(bob.id)
    }
}
