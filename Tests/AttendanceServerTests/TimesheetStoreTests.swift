import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import Foundation
import Testing

@testable import AttendanceServer

/// The day-rule matrix through each backend: the same sessions stored in SQLite and PostgreSQL
/// (as a person adds them, with their ledger rows) and read back by `TimesheetService` give
/// exactly the rows the pure rules give, in every zone and across both DST changes.
@Suite struct TimesheetStoreTests {
    struct Example: Sendable, CustomTestStringConvertible {
        var backend: Backend
        var matrix: TimesheetDayRuleTests.Case
        var testDescription: String { "\(backend): \(matrix.name)" }
    }

    static let examples = Backend.allCases.flatMap { backend in
        TimesheetDayRuleTests.cases.map { Example(backend: backend, matrix: $0) }
    }

    @Test(arguments: examples) func theStoredSessionsGiveThePureRulesRows(_ example: Example) async throws {
        let repository = try await example.backend.makeRepository()
        defer { repository.shutdown() }
        let zone = try #require(TimeZone(identifier: example.matrix.zone))
        let site = SiteRecord(
            id: TimesheetFixtures.site, name: "Site", timeZone: example.matrix.zone, beacon: SiteBeacon(major: 1))
        try await repository.createSite(site)
        try await repository.createEmployee(EmployeeRecord(id: TimesheetFixtures.user, name: "Ada"))
        var policy = TimesheetPolicy()
        policy.dayBoundary = example.matrix.boundary
        try await TimesheetSettingsService(repository: repository, environment: .live).saveRules(
            siteId: site.id, policy: policy, defaultScheduleId: nil, actor: .adminToken)
        var sessions: [SessionRecord] = []
        for (index, times) in example.matrix.sessions.enumerated() {
            let fixture = TimesheetFixtures.session("s-\(index)", in: zone, from: times.0, to: times.1)
            let added = try await repository.addSession(
                AddedSession(
                    sessionKey: fixture.sessionKey, userId: fixture.userId, siteId: fixture.siteId,
                    checkInAt: fixture.checkInAt, checkOutAt: fixture.checkOutAt, reason: "matrix"),
                actor: .adminToken, requestId: nil, now: Date())
            guard case .applied(let stored) = added else {
                Issue.record("not added: \(added)")
                return
            }
            sessions.append(stored)
        }
        let dates = example.matrix.expected.keys.compactMap(LocalDate.init).sorted()
        let query = TimesheetQuery(from: try #require(dates.first), through: try #require(dates.last))
        let later = TimesheetFixtures.later
        var stored: [TimesheetDay] = []
        try await TimesheetService(repository: repository, environment: .clock({ later })).forEachEmployee(query) {
            stored += $0.days
        }
        let pure = Timesheet.compute(
            TimesheetInput(
                from: query.from, through: query.through, now: later,
                sites: [site.id: TimesheetSite(id: site.id, timeZone: zone, policy: policy)], sessions: sessions))
        #expect(stored == pure.days)
        #expect(stored.map(\.workedMinutes) == dates.map { example.matrix.expected[$0.description]?.0 ?? -1 })
    }
}
