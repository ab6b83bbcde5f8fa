import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import AttendanceServer

/// The ledger on both backends: sessions derived from it (rebuilt identically from any arrival
/// order), its chain verified and a tampered row found, corrections and requests recorded with
/// their history, and erasure that keeps the chain intact.
@Suite struct LedgerStoreTests {
    static let now = IngestServiceTests.now
    static let alice = IngestServiceTests.alice
    static let bob = Principal.device("phone-b", user: "bob")

    /// Runs SQL behind the server's back (what an attacker with the database's password could do).
    static func execute(_ sql: String, on repository: any ServerRepository) async throws {
        switch repository {
        case let sqlite as SQLiteRepository:
            try await sqlite.writer.writeWithoutTransaction { db in try db.execute(sql: sql) }
        case let postgres as PostgresRepository:
            // One statement per query: the extended protocol takes no more.
            for statement in sql.components(separatedBy: ";\n")
            where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                try await postgres.client.query(PostgresQuery(unsafeSQL: statement), logger: postgres.logger)
            }
        default:
            Issue.record("no raw SQL for \(type(of: repository))")
        }
    }

    static func heartbeat(_ session: String, _ ts: String) -> Data {
        Data(#"{"sessionKey":"\#(session)","ts":"\#(ts)"}"#.utf8)
    }

    /// One working day of several sessions as its events would reach the server, shuffled by
    /// `seed`: check-ins, heartbeats, check-outs (some before their check-in), another user's
    /// early check-out for one of Alice's sessions, and a session whose check-in never comes.
    static func shuffledDay(seed: UInt64) -> [(DeviceEndpoint, Data, String, Principal)] {
        var events: [(DeviceEndpoint, Data, String, Principal)] = []
        for index in 0..<6 {
            let minute = String(format: "%02d", 10 + index * 5)
            let session = "s-\(index)"
            events.append(
                (
                    .checkIn, IngestServiceTests.checkIn(session: session, ts: "2026-11-22T07:\(minute):00Z"),
                    "in-\(index)", alice
                ))
            events.append((.heartbeat, heartbeat(session, "2026-11-22T08:\(minute):00Z"), "hb-\(index)", alice))
            if index % 2 == 0 {
                events.append(
                    (
                        .checkOut, IngestServiceTests.checkOut(session: session, ts: "2026-11-22T08:\(minute):30Z"),
                        "out-\(index)", alice
                    ))
            }
        }
        events.append(
            (.checkOut, IngestServiceTests.checkOut(session: "s-1", ts: "2026-11-22T07:30:00Z"), "bob-out", bob))
        events.append((.heartbeat, heartbeat("s-never", "2026-11-22T08:00:00Z"), "hb-never", alice))
        var generator = SplitMix64(seed: seed)
        return events.shuffled(using: &generator)
    }

    @Test(arguments: Backend.allCases, [UInt64(1), 2, 3, 4, 5])
    func aRebuildFromTheLedgerGivesTheSameSessionsWhateverTheArrivalOrder(backend: Backend, seed: UInt64) async throws {
        let service = try await IngestServiceTests.service(try await backend.makeRepository())
        let repository = try #require(service.repository as? any ServerRepository)
        defer { repository.shutdown() }
        for (endpoint, body, key, principal) in Self.shuffledDay(seed: seed) {
            let reply = try await service.handle(endpoint, body: body, idempotencyKey: key, principal: principal)
            #expect(reply.status < 300 || reply.status == 403, "\(key): \(reply.status)")
        }
        // People's changes are replayed too.
        _ = try await repository.correctSession(
            "s-3", SessionCorrection(checkOutAt: Self.now, reason: "left by the back door"), actor: .adminToken,
            requestId: nil, now: Self.now)
        _ = try await repository.voidSession("s-4", reason: "a visitor's badge", actor: .adminToken, now: Self.now)
        _ = try await repository.addSession(
            AddedSession(
                sessionKey: "added-1", userId: "bob", siteId: "hq", checkInAt: Self.now.addingTimeInterval(-7_200),
                checkOutAt: nil, reason: "phone broken"), actor: .adminToken, requestId: nil, now: Self.now)
        let live = Set(try await repository.allSessions())
        #expect(live.count == 7)
        #expect(try await repository.session(key: "s-1")?.checkOutAt == nil, "Bob's check-out never touches s-1")
        let pendingBefore = try await repository.pendingEventCount(sessionKey: nil)

        let ledger = LedgerService(repository: repository, pageSize: 7)
        let check = try await ledger.rebuild(checkOnly: true)
        #expect(check.differing.isEmpty)
        let rebuilt = try await ledger.rebuild(checkOnly: false)
        #expect(rebuilt.sessions == 7 && rebuilt.differing.isEmpty)
        #expect(Set(try await repository.allSessions()) == live)
        #expect(try await repository.pendingEventCount(sessionKey: nil) == pendingBefore)
        try await ledger.sealAll(now: Self.now)
        #expect(try await ledger.verify().chain == LedgerVerification(sealed: check.rows, unsealed: 0, firstBreak: nil))
    }

    @Test(arguments: Backend.allCases)
    func verifyFindsARowEditedBySQL(backend: Backend) async throws {
        let service = try await IngestServiceTests.service(try await backend.makeRepository())
        let repository = try #require(service.repository as? any ServerRepository)
        defer { repository.shutdown() }
        for (endpoint, body, key, principal) in Self.shuffledDay(seed: 9) {
            _ = try await service.handle(endpoint, body: body, idempotencyKey: key, principal: principal)
        }
        let ledger = LedgerService(repository: repository)
        let sealed = try await ledger.sealAll(now: Self.now)
        #expect(try await ledger.verify().chain.isIntact)
        // One schema, one set of names, on both backends.
        let table = "ledger_events"
        let column = "device_at"
        // The database refuses the edit as it stands…
        await #expect(throws: (any Error).self) {
            try await Self.execute("UPDATE \(table) SET \(column) = \(column) - 3600 WHERE id = 5", on: repository)
        }
        await #expect(throws: (any Error).self) {
            try await Self.execute("DELETE FROM \(table) WHERE id = 5", on: repository)
        }
        // …so the attacker drops the guard first: the chain still finds the edit.
        if backend == .sqlite {
            try await Self.execute("DROP TRIGGER ledger_rows_are_never_changed", on: repository)
        } else {
            try await Self.execute("ALTER TABLE ledger_events DISABLE TRIGGER ledger_append_only", on: repository)
        }
        try await Self.execute("UPDATE \(table) SET \(column) = \(column) - 3600 WHERE id = 5", on: repository)
        let result = try await ledger.verify().chain
        #expect(result.sealed == sealed)
        #expect(result.firstBreak?.eventId == 5)
        #expect(result.firstBreak?.sequence == 5)
    }

    @Test(arguments: Backend.allCases)
    func aCorrectionAnApprovedRequestAndTheirHistory(backend: Backend) async throws {
        let service = try await IngestServiceTests.service(try await backend.makeRepository())
        let repository = try #require(service.repository as? any ServerRepository)
        defer { repository.shutdown() }
        let manual = Data(
            (#"{"userId":"alice","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
                + #""ts":"2026-11-22T07:00:00Z","sessionKey":"s-m","source":"manual","reason":"beacon was down","#
                + #""deviceMeta":{"deviceId":"phone-a","platform":"ios","appVersion":"1.4"}}"#).utf8)
        #expect(
            try await service.handle(.checkIn, body: manual, idempotencyKey: "m", principal: Self.alice).status == 201)
        let corrections = CorrectionService(repository: repository, environment: .clock({ Self.now }))
        let corrected = try await corrections.correct(
            "s-m", checkInAt: Date(timeIntervalSince1970: 1_795_330_800 - 600), checkOutAt: nil, siteId: nil,
            reason: "arrived earlier, per the gate log", actor: .adminToken)
        #expect(corrected.corrected && corrected.evidence.checkInReason == "beacon was down")
        await #expect(throws: DomainError.self) {
            _ = try await corrections.correct(
                "s-m", checkInAt: Self.now.addingTimeInterval(86_400), checkOutAt: nil, siteId: nil, reason: "x",
                actor: .adminToken)
        }

        let requests = RequestService(repository: repository, environment: .clock({ Self.now }))
        let filed = try await requests.file(
            RequestService.Input(
                sessionKey: "s-m", siteId: nil, checkInAt: nil, checkOutAt: Self.now.addingTimeInterval(-60),
                reason: "forgot to check out", evidence: ["motionStartedAt": "2026-11-22T08:59:00Z"]),
            user: "alice", device: "phone-a")
        #expect(try await requests.list(userId: nil, state: .pending).map(\.id) == [filed.id])
        await #expect(throws: DomainError.self) {
            _ = try await requests.file(
                RequestService.Input(
                    sessionKey: "s-m", siteId: nil, checkInAt: nil, checkOutAt: Self.now, reason: "x",
                    evidence: [:]), user: "bob", device: "phone-b")
        }
        let approved = try await requests.decide(id: filed.id, approve: true, comment: "ok", actor: .adminToken)
        #expect(approved.state == .approved && approved.decidedBy == .adminToken)
        #expect(try await repository.session(key: "s-m")?.checkOutAt == Self.now.addingTimeInterval(-60))
        await #expect(throws: DomainError.self) {
            _ = try await requests.decide(id: filed.id, approve: false, comment: "no", actor: .adminToken)
        }
        let missing = try await requests.file(
            RequestService.Input(
                sessionKey: nil, siteId: "hq", checkInAt: Self.now.addingTimeInterval(-30_000),
                checkOutAt: Self.now.addingTimeInterval(-20_000), reason: "phone was flat",
                evidence: [:]), user: "alice", device: "phone-a")
        let added = try await requests.decide(id: missing.id, approve: true, comment: nil, actor: .adminToken)
        #expect(try await repository.session(key: try #require(added.sessionKey))?.corrected == true)
        let rejected = try await requests.file(
            RequestService.Input(
                sessionKey: "s-m", siteId: nil, checkInAt: Self.now.addingTimeInterval(-40_000),
                checkOutAt: nil, reason: "x", evidence: [:]), user: "alice", device: "phone-a")
        await #expect(throws: DomainError.self) {
            _ = try await requests.decide(id: rejected.id, approve: false, comment: nil, actor: .adminToken)
        }
        #expect(
            try await requests.decide(id: rejected.id, approve: false, comment: "no record", actor: .adminToken).state
                == .rejected)

        let (session, history) = try await corrections.history("s-m")
        #expect(
            history.map(\.kind) == [
                .checkIn, .sessionCorrected, .requestFiled, .sessionCorrected, .requestApproved,
                .requestFiled, .requestRejected,
            ])
        #expect(history.first?.actor == .device("phone-a"))
        let firstCorrection = try history[1].record()
        #expect(firstCorrection.reason == "arrived earlier, per the gate log")
        #expect(firstCorrection.changes["checkInAt"]?.before == "2026-11-22T07:00:00Z")
        guard case .sessionCorrected(let approved) = try history[3].record() else {
            Issue.record("row 3 is not a correction: \(history[3].kind)")
            return
        }
        #expect(approved.requestId == filed.id)
        #expect(session.checkOutAt == Self.now.addingTimeInterval(-60))
        #expect(try await LedgerService(repository: repository).rebuild(checkOnly: true).differing.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func erasingADeactivatedEmployeeKeepsTheHoursAndTheChain(backend: Backend) async throws {
        let service = try await IngestServiceTests.service(try await backend.makeRepository())
        let repository = try #require(service.repository as? any ServerRepository)
        defer { repository.shutdown() }
        let admin = AdminService(repository: repository, environment: .live)
        let eve = try await admin.createEmployee(name: "Eve Example", externalId: "E-17", email: "eve@example.com")
        try await repository.appendLedger(
            LedgerEvent.checkIn(
                CheckInCommand(
                    sessionKey: "s-eve", userId: eve.id, siteId: "hq", deviceId: nil, at: Self.now,
                    source: .manual), now: Self.now))
        let ledger = LedgerService(repository: repository)
        try await ledger.sealAll(now: Self.now)
        await #expect(throws: DomainError.self) { _ = try await admin.eraseEmployee(id: eve.id) }
        _ = try await admin.deactivateEmployee(id: eve.id)
        let erased = try await admin.eraseEmployee(id: eve.id)
        #expect(erased.name == "Erased employee \(eve.id)" && erased.email == nil && erased.externalId == nil)
        let rows = try await repository.ledgerEvents(LedgerFilter(userId: eve.id), before: nil, limit: 100)
        #expect(rows.allSatisfy { $0.personal == nil })
        #expect(rows.contains { $0.kind == .employeeCreated && $0.personalDigest != nil })
        try await ledger.sealAll(now: Self.now)
        #expect(try await ledger.verify().chain.isIntact)
    }

}
