import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// A period locks once its last day is over at every site, each in its own zone: not at UTC
/// midnight while Honolulu still works its last day.
@Suite struct PayPeriodLockTimeTests {
    final class Clock: @unchecked Sendable {
        // @unchecked: set between calls, never concurrently.
        var now = Date()
    }

    @Test(arguments: Backend.allCases) func aPeriodLocksWhenItsLastDayIsOverEverywhere(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        try await repository.createSite(
            SiteRecord(
                id: "hnl", name: "Honolulu", timeZone: "Pacific/Honolulu",
                beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)),
            audit: nil)
        let clock = Clock()
        let service = PayPeriodService(repository: repository, environment: .clock({ clock.now }))
        clock.now = try RFC3339.parse("2026-11-20T12:00:00Z")
        _ = try await service.saveCycle(
            .monthly, effectiveFrom: LocalDate("2026-10-01")!, anchor: nil, actor: .adminToken)
        let november = LocalDate("2026-11-01")!
        clock.now = try RFC3339.parse("2026-12-01T05:00:00Z")  // 19:00 on 30 November in Honolulu
        _ = try await service.change(start: november, .approve, actor: .adminToken)
        do {
            _ = try await service.change(start: november, .lock, actor: .adminToken)
            Issue.record("locked while 30 November still ran in Honolulu")
        } catch let error as DomainError {
            #expect(error.kind == .conflict)
            #expect(error.detail.contains("still 2026-11-30 at Honolulu (Pacific/Honolulu)"), "\(error.detail)")
        }
        clock.now = try RFC3339.parse("2026-12-01T10:30:00Z")  // 00:30 on 1 December in Honolulu
        #expect(try await service.change(start: november, .lock, actor: .adminToken).state == .locked)
    }
}
