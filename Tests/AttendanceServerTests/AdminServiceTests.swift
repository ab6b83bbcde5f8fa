import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

@Suite struct AdminServiceTests {
    func setup(_ backend: Backend) async throws -> (AdminService, any ServerRepository) {
        let repository = try await backend.makeRepository()
        return (AdminService(repository: repository, environment: .live), repository)
    }

    func problem(_ body: () async throws -> Void) async -> DomainError? {
        do {
            try await body()
            return nil
        } catch let problem as DomainError { return problem } catch {
            Issue.record("not a DomainError: \(error)")
            return nil
        }
    }

    let hq = AdminService.SiteInput(
        name: "HQ", timeZone: "Europe/Berlin", beaconUUID: SiteBeacon.defaultUUID.uuidString, major: 1)

    @Test(arguments: Backend.allCases) func sitesAreCreatedReadUpdatedAndDeleted(backend: Backend) async throws {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let site = try await admin.createSite(hq)
        #expect(site.beacon == SiteBeacon(major: 1))
        #expect(try await admin.site(id: site.id) == site)
        var renamed = hq
        renamed.name = "Head office"
        renamed.geofence = Geofence(latitude: 52.52, longitude: 13.40, radiusMeters: 150)
        #expect(try await admin.updateSite(id: site.id, renamed).name == "Head office")
        #expect(try await admin.site(id: site.id).geofence?.radiusMeters == 150)
        try await admin.deleteSite(id: site.id)
        #expect(try await admin.site(id: site.id).deactivatedAt != nil)
        try await admin.deleteSite(id: site.id)
        #expect(await problem { try await admin.deleteSite(id: "site-ghost") }?.kind == .notFound)
    }

    @Test(
        arguments: Backend.allCases,
        [
            ("timeZone", "Mars/Olympus", "an IANA time zone"),
            ("beaconUUID", "not-a-uuid", "a UUID"),
            ("major", "70000", "0 to 65535"),
            ("name", " ", "a non-empty text"),
            ("geofence.radiusMeters", "10.0", "50 to 5000 metres"),
        ])
    func badSiteInputNamesTheField(backend: Backend, example: (String, String, String)) async throws {
        let (field, value, expected) = example
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        var input = hq
        switch field {
        case "timeZone": input.timeZone = value
        case "beaconUUID": input.beaconUUID = value
        case "major": input.major = Int(value)!
        case "name": input.name = value
        default: input.geofence = Geofence(latitude: 0, longitude: 0, radiusMeters: Double(value)!)
        }
        let refusal = await problem { _ = try await admin.createSite(input) }
        // A time zone that matches the contract's pattern but is unknown is a semantic refusal.
        #expect(refusal?.kind == (field == "timeZone" ? .unprocessable : .invalid))
        #expect(refusal?.detail.hasPrefix("'\(field)' is '\(value)'") == true)
        #expect(refusal?.detail.contains(expected) == true)
    }

    @Test(arguments: Backend.allCases) func oneSitePerBeaconAndADeletedSiteIsKeptWithItsSessions(
        backend: Backend
    ) async throws {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let site = try await admin.createSite(hq)
        #expect(await problem { _ = try await admin.createSite(hq) }?.kind == .conflict)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        _ = try await repository.checkIn(
            CheckInCommand(
                sessionKey: "s-1", userId: "alice", siteId: site.id, deviceId: nil,
                at: Date(timeIntervalSince1970: 100), source: .automatic), now: Date())
        let clock = TestClock(Date(timeIntervalSince1970: 500))
        let deleting = AdminService(repository: repository, environment: clock.environment)
        try await deleting.deleteSite(id: site.id)
        clock.set(Date(timeIntervalSince1970: 900))
        try await deleting.deleteSite(id: site.id)
        let kept = try await admin.site(id: site.id)
        #expect(kept.deactivatedAt == Date(timeIntervalSince1970: 500))
        #expect(try await repository.session(key: "s-1")?.siteId == site.id)
        // A check-in that raced the deletion records nothing and says why.
        let late = try await repository.checkIn(
            CheckInCommand(
                sessionKey: "s-2", userId: "alice", siteId: site.id, deviceId: nil,
                at: Date(timeIntervalSince1970: 600), source: .automatic), now: Date())
        #expect(late == .siteInactive(site.id))
        #expect(try await repository.session(key: "s-2") == nil)
        #expect(await problem { try await admin.deleteSite(id: "nowhere") }?.kind == .notFound)
    }

    @Test(arguments: Backend.allCases) func beaconsBelongToASiteWithOneMinorEach(backend: Backend) async throws {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let site = try await admin.createSite(hq)
        let beacon = try await admin.createBeacon(siteId: site.id, minor: 7, label: "Front door", txPowerDBm: -62)
        #expect(try await admin.beacons(siteId: site.id) == [beacon])
        #expect(
            await problem { _ = try await admin.createBeacon(siteId: site.id, minor: 7, label: nil, txPowerDBm: nil) }?
                .kind == .conflict)
        #expect(
            await problem { _ = try await admin.createBeacon(siteId: site.id, minor: 8, label: nil, txPowerDBm: 4) }?
                .kind == .invalid)
        #expect(
            await problem {
                _ = try await admin.createBeacon(siteId: "nowhere", minor: 1, label: nil, txPowerDBm: nil)
            }?.kind == .notFound)
        try await admin.deleteBeacon(id: beacon.id)
        #expect(try await admin.beacons(siteId: site.id).isEmpty)
    }

    @Test(arguments: Backend.allCases) func employeesAreValidatedAndExternalIdsUnique(backend: Backend) async throws {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let alice = try await admin.createEmployee(name: "Alice", externalId: "HR-1", email: "alice@example.com")
        #expect(
            await problem { _ = try await admin.createEmployee(name: "Other", externalId: "HR-1", email: nil) }?.kind
                == .conflict)
        #expect(
            await problem { _ = try await admin.createEmployee(name: "Bob", externalId: nil, email: "bob") }?.kind
                == .invalid)
        #expect(
            try await admin.updateEmployee(id: alice.id, name: "Alice B.", externalId: "HR-1", email: nil).name
                == "Alice B.")
        #expect(
            await problem { _ = try await admin.updateEmployee(id: "ghost", name: "X", externalId: nil, email: nil) }?
                .kind == .notFound)
    }

    @Test(arguments: Backend.allCases) func sessionsAreFilteredByHowTheyWereCheckedIn(backend: Backend) async throws {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let site = try await admin.createSite(hq)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        for (key, source) in [("s-auto", EventSource.automatic), ("s-manual", .manual)] {
            let command = CheckInCommand(
                sessionKey: SessionKey(key), userId: "alice", siteId: site.id, deviceId: nil,
                at: Date(timeIntervalSince1970: 100), source: source)
            _ = try await repository.checkIn(command, now: Date())
        }
        let manual = try await admin.sessions(
            userId: nil, siteId: nil, from: nil, to: nil, limit: nil, cursor: nil,
            source: .manual)
        #expect(manual.items.map(\.sessionKey) == ["s-manual"])
        let all = try await admin.sessions(userId: nil, siteId: nil, from: nil, to: nil, limit: nil, cursor: nil)
        #expect(all.items.count == 2)
    }

    @Test(arguments: Backend.allCases) func sessionsAreFilteredAndPagedWithoutGapsOrRepeats(backend: Backend)
        async throws
    {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        let a = try await admin.createSite(hq)
        var other = hq
        other.major = 2
        let b = try await admin.createSite(other)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        try await repository.createEmployee(EmployeeRecord(id: "bob", name: "Bob"))
        let day = 1_795_305_600.0  // 2026-11-22T00:00:00Z
        for index in 0..<25 {
            let user: UserID = index % 2 == 0 ? "alice" : "bob"
            let site = index % 3 == 0 ? b.id : a.id
            // Five sessions share each check-in time, so the cursor must break ties by key.
            let start = Date(timeIntervalSince1970: day + Double(index / 5) * 3600)
            _ = try await repository.checkIn(
                CheckInCommand(
                    sessionKey: SessionKey("s-\(index)"), userId: user, siteId: site, deviceId: nil,
                    at: start, source: .automatic), now: start)
            if index < 20 {
                _ = try await repository.apply(
                    SessionEventCommand(
                        kind: .checkOut, sessionKey: SessionKey("s-\(index)"), deviceId: nil, userId: nil,
                        at: start.addingTimeInterval(1800), reason: "regionExit", source: .automatic), now: start)
            }
        }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try await admin.sessions(userId: nil, siteId: nil, from: nil, to: nil, limit: 4, cursor: cursor)
            seen += page.items.map(\.sessionKey.rawValue)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen.count == 25 && Set(seen).count == 25)

        let alices = try await admin.sessions(
            userId: "alice", siteId: a.id.rawValue, from: nil, to: nil, limit: 100, cursor: nil)
        #expect(alices.items.allSatisfy { $0.userId == "alice" && $0.siteId == a.id })
        #expect(alices.items.count == 8)
        // From 03:00: sessions still open or closed after it; to 04:00: begun before it.
        let window = try await admin.sessions(
            userId: nil, siteId: nil, from: "2026-11-22T03:00:00Z", to: "2026-11-22T04:00:00Z", limit: 100, cursor: nil)
        #expect(window.items.map(\.sessionKey.rawValue).sorted() == (15..<20).map { "s-\($0)" }.sorted())

        #expect(
            await problem {
                _ = try await admin.sessions(
                    userId: nil, siteId: nil, from: "yesterday", to: nil, limit: nil, cursor: nil)
            }?.detail
                .hasPrefix("'from' is 'yesterday'") == true)
        #expect(
            await problem {
                _ = try await admin.sessions(userId: nil, siteId: nil, from: nil, to: nil, limit: 0, cursor: nil)
            }?.kind == .invalid)
        #expect(
            await problem {
                _ = try await admin.sessions(userId: nil, siteId: nil, from: nil, to: nil, limit: nil, cursor: "%%%")
            }?.kind == .invalid)

        let present = try await admin.presence(siteId: nil)
        #expect(present.map(\.session.sessionKey.rawValue).sorted() == (20..<25).map { "s-\($0)" }.sorted())
        #expect(present.allSatisfy { $0.name == ($0.session.userId == "alice" ? "Alice" : "Bob") })
    }

    @Test(arguments: Backend.allCases) func aDevicesConfigListsSitesAndCalibratedBeacons(backend: Backend) async throws
    {
        let (admin, repository) = try await setup(backend)
        defer { repository.shutdown() }
        var fenced = hq
        fenced.geofence = Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150)
        let site = try await admin.createSite(fenced)
        _ = try await admin.createBeacon(siteId: site.id, minor: 3, label: nil, txPowerDBm: -61)
        _ = try await admin.createBeacon(siteId: site.id, minor: 4, label: nil, txPowerDBm: nil)
        let config = try await admin.deviceConfig(device: "dev-1", user: "alice")
        #expect(config.userID == "alice")
        #expect(config.deviceID == "dev-1")
        #expect(config.sites.map(\.siteID) == [site.id.rawValue])
        #expect(config.sites.first?.major == 1)
        #expect(config.sites.first?.geofence == Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150))
        // Only beacons with a measured power are calibrations.
        #expect(config.beaconCalibrations.map(\.minor) == [3])
        #expect(config.beaconCalibrations.first?.txPowerDBm == -61)
        // The keys are the engine Configuration's names (its strict decoder is exercised in the
        // engine's own tests and by enrollment against the real server).
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(config)) as? [String: Any]
        #expect(Set(try #require(object).keys) == ["userID", "deviceID", "sites", "beaconCalibrations"])
    }
}
