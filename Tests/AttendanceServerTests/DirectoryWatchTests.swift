import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Synchronization
import Testing

@testable import AttendanceServer

/// The directory version that lets every server process cache sites, employees and tokens
/// (docs/SERVER.md, "Replicas"): the database's triggers move it with every change a cache could
/// hold, and a watch trusts a reading of it for half a second.
@Suite struct DirectoryWatchTests {
    @Test(arguments: Backend.allCases) func theVersionMovesWithWhatTheCachesHoldAndNothingElse(
        backend: Backend
    ) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        let now = Date()
        var version = try await repository.directoryVersion()
        /// Whether `change` moved the version.
        func moved(_ change: () async throws -> Void) async throws -> Bool {
            try await change()
            let after = try await repository.directoryVersion()
            defer { version = after }
            return after > version
        }
        let site = SiteRecord(
            id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1))
        #expect(try await moved { try await repository.createSite(site) })
        #expect(try await moved { try await repository.createEmployee(EmployeeRecord(id: "ada", name: "Ada")) })
        let device = DeviceRecord(
            id: "phone", userId: "ada", platform: "ios", deviceName: nil, enrolledAt: now, lastSeenAt: nil,
            revokedAt: nil)
        #expect(try await moved { try await repository.createDevice(device, tokenHash: "hash", audit: nil) })
        // Traffic: a device seen again, and what it reports, change nothing a cache holds.
        #expect(try await !moved { _ = try await repository.device(tokenHash: "hash", now: now) })
        let state = DeviceState(permissions: Permissions(), appVersion: "1.0", observedAt: now)
        #expect(try await !moved { try await repository.saveDeviceState(state, device: "phone") })
        #expect(try await moved { _ = try await repository.revokeDevice(id: "phone", now: now, audit: nil) })
        let input = AdminService.SiteInput(
            name: "HQ", timeZone: "Europe/Berlin", beaconUUID: SiteBeacon.defaultUUID.uuidString, major: 2)
        #expect(
            try await moved {
                _ = try await AdminService(repository: repository, environment: .live).updateSite(id: "hq", input)
            })
    }

    @Test func aReadingIsTrustedForHalfASecondFromWhenItStarted() async throws {
        let repository = try SQLiteRepository.inMemory()
        let base = ContinuousClock.now
        let offset = Mutex<Duration>(.zero)
        let watch = DirectoryWatch(repository: repository, now: { base + offset.withLock { $0 } })
        #expect(watch.trustedVersion() == nil)
        try await watch.poll()
        let read = try await repository.directoryVersion()
        #expect(watch.trustedVersion() == read)
        offset.withLock { $0 = .milliseconds(499) }
        #expect(watch.trustedVersion() == read)
        offset.withLock { $0 = .milliseconds(500) }
        #expect(watch.trustedVersion() == nil)
        try await repository.createEmployee(EmployeeRecord(id: "ada", name: "Ada"))
        try await watch.poll()
        #expect(watch.trustedVersion() == read + 1)
    }
}
