import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// A stored kind, source or role this release does not know is an error that names the table, the
/// row, the column and the value: never read as a default (a heartbeat, an automatic check-in, an
/// auditor).
@Suite struct StoredValueTests {
    @Test(arguments: Backend.allCases) func anUnknownSessionSourceNamesItsRow(backend: Backend) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        let site = SiteRecord(
            id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1))
        try await repository.createSite(site)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let command = CheckInCommand(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: nil,
            at: IngestServiceTests.now.addingTimeInterval(-600), source: .automatic, reason: nil,
            evidence: SessionEvidence())
        let slot = AnswerSlot<CheckInOutcome>(scope: "device:a", key: "k1", requestHash: "h") { _ in
            StoredReply(status: 201, contentType: "application/json", body: Data("{}".utf8))
        }
        _ = try await repository.checkIn(command, now: IngestServiceTests.now, answering: slot)
        #expect(try await repository.session(key: "s-1")?.source == .automatic)

        try await LedgerStoreTests.execute("UPDATE sessions SET source = 'telepathy'", on: repository)
        do {
            _ = try await repository.session(key: "s-1")
            Issue.record("an unknown source was read as a session")
        } catch let error as StoredValueError {
            #expect(error.table == "sessions")
            #expect(error.row == "s-1")
            #expect(error.column == "source")
            #expect(error.value == "telepathy")
            #expect(error.description.contains("telepathy"))
        }
    }

    @Test func anUnknownEnumerationIsRefusedAndNilStaysNil() throws {
        #expect(
            try StoredValue.decode("heartbeat", as: SessionEventCommand.Kind.self, table: "t", row: "1", column: "kind")
                == .heartbeat)
        #expect(try StoredValue.decode(nil, as: Role.self, table: "t", row: "1", column: "role") == nil)
        #expect(throws: StoredValueError.self) {
            try StoredValue.decode("superuser", as: Role.self, table: "accounts", row: "acc-1", column: "role") as Role
        }
    }
}
