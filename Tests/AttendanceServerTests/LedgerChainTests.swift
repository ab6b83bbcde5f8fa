import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// The ledger's hashes, the verifier and the replay, with no database.
@Suite struct LedgerChainTests {
    static let t0 = SessionLedgerTests.t0

    static func rows(_ count: Int) -> [LedgerEvent] {
        (1...count).map { index in
            var event = LedgerEvent.sessionEvent(
                SessionLedgerTests.event(.heartbeat, at: Double(index)), now: t0.addingTimeInterval(Double(index)))
            event.id = Int64(index)
            return event
        }
    }

    static func sealed(_ rows: [LedgerEvent]) -> [LedgerSeal] {
        LedgerHash.seals(after: 0, previous: LedgerHash.genesis, events: rows.map { ($0.id, $0.hash) })
    }

    @Test func everyColumnIsCoveredByTheContentHash() {
        let row = Self.rows(1)[0]
        var edits: [LedgerEvent] = []
        var edited = row
        edited.actor = .adminToken
        edits.append(edited)
        edited = row
        edited.deviceAt = row.deviceAt?.addingTimeInterval(1)
        edits.append(edited)
        edited = row
        edited.payload = Data(#"{"reason":"changed"}"#.utf8)
        edits.append(edited)
        edited = row
        edited.userId = "mallory"
        edits.append(edited)
        for edit in edits { #expect(LedgerHash.content(of: edit) != row.hash) }
        #expect(LedgerHash.content(of: row) == row.hash)
    }

    @Test func anIntactChainVerifies() {
        let rows = Self.rows(5)
        var verifier = LedgerVerifier()
        for (seal, row) in zip(Self.sealed(rows), rows) { verifier.check(seal, event: row) }
        #expect(verifier.verification == LedgerVerification(sealed: 5, unsealed: 0, firstBreak: nil))
    }

    @Test func anEditedRowIsTheFirstBreak() {
        var rows = Self.rows(5)
        let seals = Self.sealed(rows)
        rows[2].payload = Data(#"{"reason":"edited"}"#.utf8)
        var verifier = LedgerVerifier()
        for (seal, row) in zip(seals, rows) { verifier.check(seal, event: row) }
        #expect(verifier.firstBreak?.sequence == 3)
        #expect(verifier.firstBreak?.eventId == 3)
        #expect(verifier.firstBreak?.reason.contains("content hash") == true)
    }

    @Test func anEditedRowWithItsHashRecomputedBreaksTheLink() {
        var rows = Self.rows(5)
        let seals = Self.sealed(rows)
        rows[1].payload = Data(#"{"reason":"edited"}"#.utf8)
        rows[1].hash = LedgerHash.content(of: rows[1])
        var verifier = LedgerVerifier()
        for (seal, row) in zip(seals, rows) { verifier.check(seal, event: row) }
        #expect(verifier.firstBreak?.sequence == 2)
        #expect(verifier.firstBreak?.reason.contains("does not follow") == true)
    }

    @Test func aDeletedRowOrSealIsFound() {
        let rows = Self.rows(4)
        let seals = Self.sealed(rows)
        var missingRow = LedgerVerifier()
        for (seal, row) in zip(seals, rows) { missingRow.check(seal, event: seal.sequence == 2 ? nil : row) }
        #expect(missingRow.firstBreak?.sequence == 2)
        #expect(missingRow.firstBreak?.reason.contains("missing") == true)
        var missingSeal = LedgerVerifier()
        for (seal, row) in zip(seals, rows) where seal.sequence != 3 { missingSeal.check(seal, event: row) }
        #expect(missingSeal.firstBreak?.sequence == 4)
    }

    @Test func erasingPersonalDataKeepsTheRowVerifiable() {
        var row = LedgerEvent.admin(
            .employeeCreated, target: "user-1", userId: "user-1",
            changes: [
                "name": LedgerChange(before: nil, after: "Ada"), "deactivatedAt": LedgerChange(before: nil, after: nil),
            ],
            actor: .adminToken, now: Self.t0)
        row.id = 1
        #expect(row.personal != nil && !String(decoding: row.payload, as: UTF8.self).contains("Ada"))
        let seals = Self.sealed([row])
        row.personal = nil
        var verifier = LedgerVerifier()
        verifier.check(seals[0], event: row)
        #expect(verifier.verification.isIntact)
        row.personal = Data(#"{"changes":{"name":{"after":"Eve"}}}"#.utf8)
        var tampered = LedgerVerifier()
        tampered.check(seals[0], event: row)
        #expect(tampered.firstBreak?.reason.contains("personal data") == true)
    }

    @Test func theReplayGivesTheSessionTheLiveRulesGave() throws {
        let checkIn = CheckInCommand(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: "phone-a", at: Self.t0, source: .manual,
            reason: "badge reader down",
            evidence: SessionEvidence(checkInReason: "badge reader down", appVersion: "1.2", clockSkewSeconds: -3))
        let earlyCheckOut = SessionLedgerTests.event(.checkOut, at: 3_600)
        let strangersHeartbeat = SessionLedgerTests.event(.heartbeat, at: 60, user: "bob")
        var rows = [
            LedgerEvent.sessionEvent(earlyCheckOut, now: Self.t0),
            LedgerEvent.sessionEvent(strangersHeartbeat, now: Self.t0),
            LedgerEvent.checkIn(checkIn, now: Self.t0.addingTimeInterval(5)),
        ]
        for index in rows.indices { rows[index].id = Int64(index + 1) }
        var replay = LedgerReplay()
        for row in rows { try replay.apply(row) }
        guard
            case .record(let live, let applied) = SessionLedger.checkIn(
                checkIn, known: nil, siteIsActive: true,
                pending: [
                    SessionLedgerTests.pending(1, .checkOut, at: 3_600),
                    SessionLedgerTests.pending(2, .heartbeat, at: 60, user: "bob"),
                ],
                now: Self.t0)
        else {
            Issue.record("expected a record")
            return
        }
        #expect(replay.sessions["s-1"] == live)
        #expect(applied == [1])
        #expect(replay.pendingRows.map(\.event.id) == [2])
        #expect(replay.differences(from: [live]).isEmpty)
        var changed = live
        changed.checkOutAt = nil
        #expect(replay.differences(from: [changed]) == ["s-1"])
    }

    /// A manual check-in's typed reason is personal: kept in the row's personal part, not the
    /// payload; the replay reads it from there, and reads it as empty once it is erased.
    @Test func aManualReasonIsPersonalAndReplaysEmptyOnceErased() throws {
        let checkIn = CheckInCommand(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: "phone-a", at: Self.t0, source: .manual,
            reason: "at the clinic", evidence: SessionEvidence(checkInReason: "at the clinic"))
        var row = LedgerEvent.checkIn(checkIn, now: Self.t0)
        row.id = 1
        #expect(!String(decoding: row.payload, as: UTF8.self).contains("clinic"))
        #expect(row.opened?.reason == "at the clinic" && row.personalSubject == "alice")
        var replay = LedgerReplay()
        try replay.apply(row)
        #expect(replay.sessions["s-1"]?.evidence.checkInReason == "at the clinic")
        (row.personal, row.opened) = (nil, nil)
        var erased = LedgerReplay()
        try erased.apply(row)
        #expect(erased.sessions["s-1"]?.evidence.checkInReason == "")
        let automatic = LedgerEvent.checkIn(
            CheckInCommand(
                sessionKey: "s-2", userId: "alice", siteId: "hq", deviceId: "phone-a", at: Self.t0,
                source: .automatic, reason: "regionEntry", evidence: SessionEvidence(checkInReason: "regionEntry")),
            now: Self.t0)
        #expect(automatic.personal == nil && String(decoding: automatic.payload, as: UTF8.self).contains("regionEntry"))
    }

    /// A deactivation closes an open session with "deactivated" as its check-out's reason; the
    /// rebuild reads the same from the row.
    @Test func aDeactivationsCloseReplaysAsDeactivated() throws {
        let checkIn = CheckInCommand(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: "phone-a", at: Self.t0, source: .automatic)
        var replay = LedgerReplay()
        var opened = LedgerEvent.checkIn(checkIn, now: Self.t0)
        opened.id = 1
        try replay.apply(opened)
        let session = try #require(replay.sessions["s-1"])
        let correction = SessionCorrection.deactivation(of: session, at: Self.t0.addingTimeInterval(600))
        guard case .write(let live, let changes) = SessionLedger.correct(correction, of: session, key: "s-1") else {
            Issue.record("expected a write")
            return
        }
        var closed = LedgerEvent.change(
            .corrected, of: live, correction: correction, reason: correction.reason, changes: changes,
            actor: .server, now: Self.t0.addingTimeInterval(600))
        closed.id = 2
        try replay.apply(closed)
        #expect(live.checkOutReason == "deactivated")
        #expect(replay.sessions["s-1"] == live)
    }
}
