import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import GRDB
import PostgresNIO
import Synchronization
import Testing

@testable import AttendanceServer

/// The exactly-once rules of docs/SERVER.md, against both backends (the shared contract suite).
@Suite struct IngestServiceTests {
    static let now = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22T09:00:00Z
    static let site = SiteRecord(id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1))
    static let alice = Principal.device("phone-a", user: "alice")

    static func service(_ repository: any ServerRepository) async throws -> IngestService {
        if try await repository.site(id: site.id) == nil {
            try await repository.createSite(site)
            try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
            try await repository.createEmployee(EmployeeRecord(id: "bob", name: "Bob"))
        }
        return IngestService.contract(repository: repository, environment: .clock({ now }))
    }

    static func checkIn(
        user: String = "alice", session: String = "s-1", ts: String = "2026-11-22T08:55:00Z", major: Int = 1
    ) -> Data {
        Data(
            #"{"userId":"\#(user)","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":\#(major)},"ts":"\#(ts)","sessionKey":"\#(session)","source":"automatic","deviceMeta":{"deviceId":"phone-a","platform":"ios"}}"#
                .utf8)
    }

    static func checkOut(session: String = "s-1", ts: String = "2026-11-22T08:58:00Z") -> Data {
        Data(#"{"sessionKey":"\#(session)","ts":"\#(ts)","reason":"regionExit","source":"automatic"}"#.utf8)
    }

    /// `POST /v1/attendance/events`'s body: each item's key, type and payload (none: left out).
    static func batch(_ items: [(key: String, type: String, payload: Data?)]) -> Data {
        let events = items.map { item in
            let payload = item.payload.map { #","\#(item.type)":"# + String(decoding: $0, as: UTF8.self) } ?? ""
            return #"{"idempotencyKey":"\#(item.key)","type":"\#(item.type)"\#(payload)}"#
        }
        return Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8)
    }

    func json(_ reply: StoredReply) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: reply.body) as? [String: Any] ?? [:]
    }

    /// A batch answer's results.
    func results(_ reply: StoredReply) throws -> [[String: Any]] {
        try json(reply)["results"] as? [[String: Any]] ?? []
    }

    @Test(arguments: Backend.allCases) func aCheckInCreatesASessionAndItsReplayIsTheSameBytes(backend: Backend)
        async throws
    {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let first = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice)
        #expect(first.status == 201)
        #expect(try json(first)["checkInAt"] as? String == "2026-11-22T08:55:00Z")
        #expect(try json(first)["siteId"] as? String == "hq")
        let again = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice)
        #expect(again == first)
    }

    @Test(arguments: Backend.allCases) func theSameKeyWithAnotherPayloadIs422(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        _ = try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice)
        let clash = try await service.handle(
            .checkIn, body: Self.checkIn(ts: "2026-11-22T08:56:00Z"), idempotencyKey: "k1", principal: Self.alice)
        #expect(clash.status == 422)
        #expect(clash.contentType == "application/problem+json")
        #expect(
            (try json(clash)["detail"] as? String)?.contains("'k1' was already used with a different payload") == true)
    }

    @Test(arguments: Backend.allCases) func keyOrderAndSpacingDoNotMakeAnotherPayload(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let first = try await service.handle(
            .checkOut, body: Self.checkOut(), idempotencyKey: "k2", principal: Self.alice)
        let reordered = Data(
            #"{ "source": "automatic", "reason": "regionExit", "ts": "2026-11-22T08:58:00Z", "sessionKey": "s-1" }"#
                .utf8)
        #expect(
            try await service.handle(.checkOut, body: reordered, idempotencyKey: "k2", principal: Self.alice) == first)
    }

    @Test(arguments: Backend.allCases) func aMissingKeyIs400(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let reply = try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: nil, principal: Self.alice)
        #expect(reply.status == 400)
        #expect((try json(reply)["detail"] as? String)?.contains("'Idempotency-Key' is missing") == true)
        #expect(try await service.repository.openSessions(siteId: nil).isEmpty)
    }

    @Test(arguments: Backend.allCases) func aClaimStrandedByAnEarlierReleaseIs409UntilItsLeaseEnds(
        backend: Backend
    ) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        // An earlier release committed a batch's claim before its items; a crash left it unanswered.
        let hash = try IngestService.request(.checkIn, json: Self.checkIn()).identity
        let young = Self.now.addingTimeInterval(-IdempotencyLease.seconds / 2)
        #expect(
            try await service.repository.claimIdempotency(
                scope: Self.alice.scope, key: "k3", requestHash: hash, now: young) == .claimed)
        #expect(
            try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "k3", principal: Self.alice).status
                == 409)
        // Past the lease, the key's next request takes it over and is processed once.
        let old = Self.now.addingTimeInterval(-IdempotencyLease.seconds - 1)
        #expect(
            try await service.repository.claimIdempotency(
                scope: Self.alice.scope, key: "k4", requestHash: "other", now: old) == .claimed)
        let taken = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "k4", principal: Self.alice)
        #expect(taken.status == 201)
        #expect(
            try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "k4", principal: Self.alice)
                == taken)
    }

    @Test(arguments: Backend.allCases) func aBatchThatFailsPartWayStoresNothingAndItsResendIsProcessedOnce(
        backend: Backend
    ) async throws {
        let repository = try await backend.makeRepository()
        let service = try await Self.service(repository)
        defer { repository.shutdown() }
        let body = Self.batch((0..<50).map { ("i-\($0)", "checkIn", Self.checkIn(session: "s-b\($0)")) })
        // The transaction fails at its last step (rendering the batch's answer): as a crash would,
        // it leaves nothing behind: no session, no item key, no batch key.
        let failing = AnswerSlot<[SlotOutcome]>(scope: Self.alice.scope, key: "b-1", requestHash: "h") { _ in
            throw InjectedFailure()
        }
        let writes = (0..<50).map { index in
            BatchWrite.checkIn(
                CheckInCommand(
                    sessionKey: SessionKey("s-b\(index)"), userId: "alice", siteId: "hq", deviceId: "phone-a",
                    at: Self.now.addingTimeInterval(-300), source: .automatic),
                AnswerSlot(scope: Self.alice.scope, key: "i-\(index)", requestHash: "x") { _ in
                    StoredReply(status: 201, contentType: "application/json", body: Data())
                })
        }
        await #expect(throws: (any Error).self) {
            _ = try await repository.ingestBatch(writes, now: Self.now, answering: failing)
        }
        #expect(try await repository.openSessions(siteId: nil).isEmpty)
        // The resend with the same key: every item once, and its replay is the same bytes.
        let reply = try await service.handleBatch(body: body, idempotencyKey: "b-1", principal: Self.alice)
        #expect(reply.status == 200)
        #expect(try results(reply).map { $0["status"] as? Int } == Array(repeating: 201, count: 50))
        #expect(try await repository.openSessions(siteId: nil).count == 50)
        #expect(try await service.handleBatch(body: body, idempotencyKey: "b-1", principal: Self.alice) == reply)
    }

    @Test(arguments: Backend.allCases) func identicalBatchesTogetherMakeOneAnswerAndOneSessionEach(
        backend: Backend
    ) async throws {
        let repository = try await backend.makeRepository()
        let service = try await Self.service(repository)
        defer { repository.shutdown() }
        // Overlapping batches in opposite orders: PostgreSQL takes their locks in one order, so
        // they never deadlock; SQLite runs them one after the other.
        let forward = (0..<30).map { ("i-\($0)", "checkIn", Self.checkIn(session: "s-c\($0)") as Data?) }
        let bodies = [Self.batch(forward), Self.batch(forward.reversed())]
        let replies = try await withThrowingTaskGroup(of: StoredReply.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await service.handleBatch(
                        body: bodies[index % 2], idempotencyKey: "same-\(index % 2)", principal: Self.alice)
                }
            }
            return try await group.reduce(into: [StoredReply]()) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 })
        #expect(Set(replies.map(\.body)).count == 2)
        #expect(try await repository.openSessions(siteId: nil).count == 30)
    }

    @Test(arguments: Backend.allCases) func aKnownSessionKeyReturnsTheSessionWithoutCountingItTwice(backend: Backend)
        async throws
    {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let first = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice)
        let second = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "another-key", principal: Self.alice)
        #expect(first.status == 201 && second.status == 200)
        #expect(first.body == second.body)
        #expect(try await service.repository.openSessions(siteId: nil).count == 1)
    }

    @Test(arguments: Backend.allCases) func aCheckOutBeforeItsCheckInIsStoredAndReconciled(backend: Backend)
        async throws
    {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let early = try await service.handle(
            .checkOut, body: Self.checkOut(), idempotencyKey: "out", principal: Self.alice)
        #expect(early.status == 202)
        #expect(try json(early)["status"] as? String == "awaitingCheckIn")
        let heartbeat = Data(#"{"sessionKey":"s-1","ts":"2026-11-22T08:57:00Z"}"#.utf8)
        #expect(
            try await service.handle(.heartbeat, body: heartbeat, idempotencyKey: "hb", principal: Self.alice).status
                == 202)
        let checkIn = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
        #expect(checkIn.status == 201)
        let session = try json(checkIn)
        #expect(session["status"] as? String == "closed")
        #expect(session["checkOutAt"] as? String == "2026-11-22T08:58:00Z")
        #expect(session["checkOutReason"] as? String == "regionExit")
        #expect(session["workedSeconds"] as? Int == 180)
        #expect(try await service.repository.openSessions(siteId: nil).isEmpty)
    }

    /// Issue #22: the reason, the rule and its signal, the app's version and the check-out's own
    /// source are kept and shown, also when the check-out arrived first.
    @Test(arguments: Backend.allCases) func aSessionKeepsItsEvidence(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let manualOut = Data(
            #"{"sessionKey":"s-1","ts":"2026-11-22T08:58:00Z","reason":"userEnded","source":"manual"}"#.utf8)
        #expect(
            try await service.handle(.checkOut, body: manualOut, idempotencyKey: "out", principal: Self.alice).status
                == 202)
        let checkIn = Data(
            ("""
            {"userId":"alice","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},
            "ts":"2026-11-22T08:55:00Z",
            "sessionKey":"s-1","source":"manual","reason":"beacon down \u{1F50B}",
            "deviceMeta":{"deviceId":"phone-a","platform":"ios","appVersion":"1.4.2"},
            "evidence":{"sampleCount":7,"medianRSSI":-61.5,"stdevDB":2.25,"walking":false,"rule":"manual"}}
            """).utf8)
        let reply = try await service.handle(.checkIn, body: checkIn, idempotencyKey: "in", principal: Self.alice)
        #expect(reply.status == 201)
        for session in [
            try json(reply),
            try json(
                try await service.handle(
                    .checkIn, body: checkIn, idempotencyKey: "in-2",
                    principal: Self.alice)),
        ] {
            #expect(session["checkInReason"] as? String == "beacon down \u{1F50B}")
            #expect(session["appVersion"] as? String == "1.4.2")
            #expect(session["deviceId"] as? String == "phone-a")
            #expect(session["checkOutSource"] as? String == "manual")
            let evidence = session["evidence"] as? [String: Any]
            #expect(evidence?["rule"] as? String == "manual")
            #expect(evidence?["sampleCount"] as? Int == 7)
            #expect(evidence?["medianRSSI"] as? Double == -61.5)
            #expect(evidence?["walking"] as? Bool == false)
        }
        let stored = try #require(try await service.repository.session(key: "s-1"))
        #expect(
            stored.evidence
                == SessionEvidence(
                    checkInReason: "beacon down \u{1F50B}", checkOutSource: .manual, appVersion: "1.4.2",
                    rule: "manual", sampleCount: 7, medianRSSI: -61.5, stdevDB: 2.25, walking: false))
    }

    /// Issue #22's report: Bob's check-out for Alice's session key, sent before her check-in, was
    /// applied to her session when it arrived.
    @Test(arguments: Backend.allCases) func anotherUsersEarlyCheckOutNeverTouchesTheSession(
        backend: Backend
    ) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let bobsPhone = Principal.device("phone-b", user: "bob")
        let early = try await service.handle(
            .checkOut, body: Self.checkOut(), idempotencyKey: "bob-out", principal: bobsPhone)
        #expect(early.status == 202)
        let checkIn = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
        #expect(checkIn.status == 201)
        #expect(try json(checkIn)["status"] as? String == "open")
        #expect(try await service.repository.session(key: "s-1")?.checkOutAt == nil)
        // Bob's event is kept (for audit), not applied and not deleted.
        #expect(try await service.repository.pendingEventCount(sessionKey: "s-1") == 1)
        // Once the session exists, Bob is refused outright.
        let late = try await service.handle(
            .checkOut, body: Self.checkOut(), idempotencyKey: "bob-out-2", principal: bobsPhone)
        #expect(late.status == 403)
        #expect(try await service.repository.session(key: "s-1")?.checkOutAt == nil)
    }

    @Test(arguments: Backend.allCases) func aCheckOutEarlierThanTheCheckInIsRefusedAndWritesNothing(backend: Backend)
        async throws
    {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        _ = try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
        let early = try await service.handle(
            .checkOut, body: Self.checkOut(ts: "2026-11-22T08:50:00Z"), idempotencyKey: "out", principal: Self.alice)
        #expect(early.status == 422)
        #expect(
            (try json(early)["detail"] as? String)?.contains(
                "'ts' is '2026-11-22T08:50:00Z'; expected a time at or after the session's check-in (2026-11-22T08:55:00Z)"
            ) == true)
        let session = try #require(try await service.repository.session(key: "s-1"))
        #expect(session.checkOutAt == nil)
        // The right check-out is still accepted afterwards.
        #expect(
            try await service.handle(.checkOut, body: Self.checkOut(), idempotencyKey: "out-2", principal: Self.alice)
                .status == 200)
    }

    @Test(arguments: Backend.allCases) func aPendingCheckOutEarlierThanItsCheckInIsNotAppliedAndIsKept(backend: Backend)
        async throws
    {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let early = try await service.handle(
            .checkOut, body: Self.checkOut(ts: "2026-11-22T08:50:00Z"), idempotencyKey: "out", principal: Self.alice)
        #expect(early.status == 202)
        let checkIn = try await service.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
        #expect(try json(checkIn)["status"] as? String == "open")
        #expect(try await service.repository.openSessions(siteId: nil).map(\.sessionKey) == ["s-1"])
        #expect(try await service.repository.pendingEventCount(sessionKey: "s-1") == 1)
    }

    @Test(arguments: Backend.allCases) func checkOutAndHeartbeatUpdateTheSession(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        _ = try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
        let beat = try await service.handle(
            .heartbeat, body: Data(#"{"sessionKey":"s-1","ts":"2026-11-22T08:57:30Z"}"#.utf8),
            idempotencyKey: "hb", principal: Self.alice)
        #expect(try json(beat)["lastSeenAt"] as? String == "2026-11-22T08:57:30Z")
        #expect(try await service.repository.openSessions(siteId: "hq").map(\.sessionKey) == ["s-1"])
        let out = try await service.handle(
            .checkOut, body: Self.checkOut(), idempotencyKey: "out", principal: Self.alice)
        #expect(out.status == 200)
        #expect(try json(out)["checkOutAt"] as? String == "2026-11-22T08:58:00Z")
        // A second check-out with another time does not move the first.
        let later = try await service.handle(
            .checkOut, body: Self.checkOut(ts: "2026-11-22T08:59:00Z"), idempotencyKey: "out2", principal: Self.alice)
        #expect(try json(later)["checkOutAt"] as? String == "2026-11-22T08:58:00Z")
    }

    @Test(arguments: Backend.allCases) func aDeviceCannotActForAnotherUser(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let reply = try await service.handle(
            .checkIn, body: Self.checkIn(user: "bob"), idempotencyKey: "k", principal: Self.alice)
        #expect(reply.status == 403)
        _ = try await service.handle(
            .checkIn, body: Self.checkIn(session: "s-bob", ), idempotencyKey: "k-a", principal: Self.alice)
        let bobsPhone = Principal.device("phone-b", user: "bob")
        let foreign = try await service.handle(
            .checkOut, body: Self.checkOut(session: "s-bob"), idempotencyKey: "k-b", principal: bobsPhone)
        #expect(foreign.status == 403)
    }

    @Test(
        arguments: Backend.allCases,
        [
            (IngestServiceTests.checkIn(major: 9), 422, "'beacon' is 'FDA50693-0000-0000-0000-290995101092:9'"),
            (IngestServiceTests.checkIn(ts: "yesterday"), 400, "'ts': 'yesterday' is not an RFC 3339 timestamp"),
            (IngestServiceTests.checkIn(ts: "2026-11-22T09:10:00Z"), 422, "no later than 300 s after"),
            (IngestServiceTests.checkIn(ts: "2026-09-01T09:00:00Z"), 422, "within the last 30 days"),
            (Data(#"{"userId":"alice"}"#.utf8), 400, "'beacon' is missing"),
            (Data("not json".utf8), 400, "JSON"),
        ])
    func badInputNamesTheFieldAndTheValue(backend: Backend, example: (Data, Int, String)) async throws {
        let (body, status, detail) = example
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let reply = try await service.handle(.checkIn, body: body, idempotencyKey: "k", principal: Self.alice)
        #expect(reply.status == status)
        let text = try json(reply)["detail"] as? String ?? ""
        #expect(text.contains(detail), "detail was: \(text)")
    }

    @Test func aBatchOverTheLimitIs413() async throws {
        // A body over its byte limit is refused by the HTTP layer before it is read (HostileInputTests).
        let repository = try SQLiteRepository.inMemory()
        let heartbeat = Data(#"{"sessionKey":"s","ts":"2026-11-22T08:00:00Z"}"#.utf8)
        let batch = Self.batch(Array(repeating: ("i", "heartbeat", heartbeat), count: 3))
        let wide = IngestService.contract(
            repository: repository, limits: IngestLimits(maxBatchItems: 2), environment: .clock({ Self.now }))
        let reply = try await wide.handleBatch(body: batch, idempotencyKey: "b", principal: Self.alice)
        #expect(reply.status == 413)
        #expect((try json(reply)["detail"] as? String)?.contains("3 events; the limit is 2") == true)
    }

    @Test(arguments: Backend.allCases) func aBatchAnswersEachItemAsItsEndpointWould(backend: Backend) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        _ = try await service.handle(
            .checkIn, body: Self.checkIn(session: "s-0"), idempotencyKey: "already", principal: Self.alice)
        let body = Self.batch([
            ("already", "checkIn", Self.checkIn(session: "s-0")),
            ("new-in", "checkIn", Self.checkIn(session: "s-2")),
            ("new-out", "checkOut", Self.checkOut(session: "s-2")),
            ("orphan", "heartbeat", Data(#"{"sessionKey":"s-unknown","ts":"2026-11-22T08:00:00Z"}"#.utf8)),
            ("broken", "checkOut", nil),
            ("elsewhere", "checkIn", Self.checkIn(session: "s-3", major: 7)),
        ])
        let reply = try await service.handleBatch(body: body, idempotencyKey: "batch-1", principal: Self.alice)
        #expect(reply.status == 200)
        let results = try results(reply)
        #expect(results.map { $0["status"] as? Int } == [201, 201, 200, 202, 400, 422])
        let problems = results.map { ($0["problem"] as? [String: Any])?["detail"] as? String ?? "" }
        #expect(problems[4].contains("events[4].checkOut"))
        #expect(problems[5].contains(":7"))
        // The whole batch again: the same bytes.
        #expect(try await service.handleBatch(body: body, idempotencyKey: "batch-1", principal: Self.alice) == reply)
    }

    @Test(arguments: Backend.allCases, [true, false])
    func twentyConcurrentDuplicatesMakeOneSession(backend: Backend, sameKey: Bool) async throws {
        let service = try await Self.service(try await backend.makeRepository())
        defer { service.repository.shutdown() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await service.handle(
                        .checkIn, body: Self.checkIn(session: "s-race"),
                        idempotencyKey: sameKey ? "race" : "race-\(index)",
                        principal: Self.alice
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(try await service.repository.openSessions(siteId: nil).count == 1)
        #expect(statuses.filter { $0 == 201 }.count >= 1)
        if sameKey {
            // One processes it; the others are replays of its answer or told it is in flight.
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 })
        } else {
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 200 })
        }
    }

    @Test(arguments: Backend.allCases) func everythingIsStillThereAfterARestart(backend: Backend) async throws {
        let (repository, reopen) = try await backend.makeStore()
        let service = try await Self.service(repository)
        #expect(
            try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice).status
                == 201)
        repository.shutdown()
        let reopened = try await Self.service(try await reopen())
        defer { reopened.repository.shutdown() }
        #expect(
            try await reopened.repository.session(key: "s-1")?.checkInAt == (try RFC3339.parse("2026-11-22T08:55:00Z")))
        let replay = try await reopened.handle(
            .checkIn, body: Self.checkIn(), idempotencyKey: "k1", principal: Self.alice)
        #expect(replay.status == 201)
    }

    /// A phone's resend of a heartbeat and a check-out after their keys were purged (kept 3 days,
    /// the phone offline for 4): answered as the session is, with no second ledger row.
    @Test(arguments: Backend.allCases) func aResendAfterItsKeyWasPurgedIsNotRecordedTwice(backend: Backend)
        async throws
    {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        _ = try await Self.service(repository)
        var limits = IngestLimits()
        limits.idempotencyRetentionSeconds = 3 * 86_400
        let clock = Mutex(Self.now)
        let service = IngestService.contract(
            repository: repository, limits: limits, environment: .clock({ clock.withLock { $0 } }))
        let heartbeat = Data(#"{"sessionKey":"s-1","ts":"2026-11-22T08:58:00Z"}"#.utf8)
        #expect(
            try await service.handle(.checkIn, body: Self.checkIn(), idempotencyKey: "in", principal: Self.alice)
                .status == 201)
        #expect(
            try await service.handle(.heartbeat, body: heartbeat, idempotencyKey: "hb", principal: Self.alice)
                .status == 200)
        #expect(
            try await service.handle(
                .checkOut, body: Self.checkOut(ts: "2026-11-22T08:59:00Z"), idempotencyKey: "out",
                principal: Self.alice
            ).status == 200)
        let rows = try await repository.latestLedgerID()
        clock.withLock { $0 = Self.now.addingTimeInterval(4 * 86_400) }
        #expect(try await repository.purgeIdempotency(olderThan: Self.now.addingTimeInterval(3_600)) == 3)
        let again = try await service.handle(.heartbeat, body: heartbeat, idempotencyKey: "hb", principal: Self.alice)
        #expect(again.status == 200)
        let out = try await service.handle(
            .checkOut, body: Self.checkOut(ts: "2026-11-22T08:59:00Z"), idempotencyKey: "out", principal: Self.alice)
        #expect(out.status == 200)
        #expect(try await repository.latestLedgerID() == rows, "a resend added a ledger row")
        // A heartbeat that is new (another time), as old, is recorded.
        let other = Data(#"{"sessionKey":"s-1","ts":"2026-11-22T08:58:30Z"}"#.utf8)
        #expect(
            try await service.handle(.heartbeat, body: other, idempotencyKey: "hb2", principal: Self.alice).status
                == 200)
        #expect(try await repository.latestLedgerID() > rows)
    }

    @Test(arguments: Backend.allCases) func idempotencyKeysArePurgedOnlyAfterTheRetention(backend: Backend) async throws
    {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        _ = try await repository.claimIdempotency(
            scope: "s", key: "old", requestHash: "h", now: Self.now.addingTimeInterval(-31 * 86_400))
        _ = try await repository.claimIdempotency(
            scope: "s", key: "new", requestHash: "h", now: Self.now.addingTimeInterval(-29 * 86_400))
        #expect(
            try await repository.purgeIdempotency(
                olderThan: Self.now.addingTimeInterval(-IngestLimits().idempotencyRetentionSeconds)) == 1)
    }
}

/// A failure a test injects where the real code could fail.
struct InjectedFailure: Error {}
