import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// `SessionLedger`'s corrections, additions and voids, one test per transition, with no database.
@Suite struct SessionCorrectionTests {
    static let t0 = SessionLedgerTests.t0
    static let key: SessionKey = "s-1"

    static func at(_ offset: Double) -> Date { t0.addingTimeInterval(offset) }

    @Test func aCorrectionOfAnUnknownSessionIsNotFound() {
        #expect(
            SessionLedger.correct(SessionCorrection(checkInAt: Self.at(0), reason: "x"), of: nil, key: Self.key)
                == .answer(.notFound(Self.key)))
    }

    @Test func aCorrectionReplacesTheGivenFieldsAndSaysWhatChanged() {
        let session = SessionLedgerTests.session(checkOut: 3_600)
        let decision = SessionLedger.correct(
            SessionCorrection(checkInAt: Self.at(-900), reason: "forgot the phone at the door"), of: session,
            key: Self.key)
        guard case .write(let next, let changes) = decision else {
            Issue.record("expected a write, got \(decision)")
            return
        }
        #expect(next.checkInAt == Self.at(-900))
        #expect(next.checkOutAt == Self.at(3_600))
        #expect(next.corrected)
        #expect(
            changes == [
                "checkInAt": LedgerChange(before: RFC3339.format(Self.t0), after: RFC3339.format(Self.at(-900)))
            ])
    }

    @Test func aCheckOutGivenToAnOpenSessionClosesIt() {
        let decision = SessionLedger.correct(
            SessionCorrection(checkOutAt: Self.at(7_200), reason: "left without the phone"),
            of: SessionLedgerTests.session(), key: Self.key)
        guard case .write(let next, _) = decision else {
            Issue.record("expected a write, got \(decision)")
            return
        }
        #expect(next.checkOutAt == Self.at(7_200))
        #expect(next.checkOutReason == "corrected")
        #expect(next.lastSeenAt == Self.at(7_200))
    }

    @Test func aCorrectionThatCrossesTheTimesIsRefused() {
        let decision = SessionLedger.correct(
            SessionCorrection(checkInAt: Self.at(4_000), reason: "x"), of: SessionLedgerTests.session(checkOut: 3_600),
            key: Self.key)
        guard case .answer(.invalid(let field, _, _)) = decision else {
            Issue.record("expected a refusal, got \(decision)")
            return
        }
        #expect(field == "checkInAt")
    }

    @Test func aCorrectionThatChangesNothingIsRefused() {
        let decision = SessionLedger.correct(
            SessionCorrection(checkInAt: Self.t0, reason: "x"), of: SessionLedgerTests.session(), key: Self.key)
        guard case .answer(.invalid(let field, _, _)) = decision else {
            Issue.record("expected a refusal, got \(decision)")
            return
        }
        #expect(field == "body")
    }

    @Test func aVoidedSessionTakesNoCorrection() {
        var session = SessionLedgerTests.session()
        session.voidedAt = Self.at(60)
        #expect(
            SessionLedger.correct(SessionCorrection(checkInAt: Self.at(-60), reason: "x"), of: session, key: Self.key)
                == .answer(.voided(Self.key)))
    }

    @Test func aVoidKeepsTheSessionMarkedAndRefusesASecond() {
        let decision = SessionLedger.void(
            SessionLedgerTests.session(), key: Self.key, reason: "test badge", at: Self.at(60))
        guard case .write(let voided, let changes) = decision else {
            Issue.record("expected a write, got \(decision)")
            return
        }
        #expect(voided.status == "voided" && voided.voidReason == "test badge" && voided.corrected)
        #expect(changes["status"] == LedgerChange(before: "open", after: "voided"))
        #expect(
            SessionLedger.void(voided, key: Self.key, reason: "again", at: Self.at(90)) == .answer(.voided(Self.key)))
        #expect(SessionLedger.void(nil, key: Self.key, reason: "x", at: Self.at(90)) == .answer(.notFound(Self.key)))
    }

    @Test func aDeviceEventOnAVoidedSessionChangesNothing() {
        var session = SessionLedgerTests.session()
        session.voidedAt = Self.at(60)
        #expect(SessionLedger.apply(SessionLedgerTests.event(.checkOut, at: 600), to: session) == .update(session))
    }

    @Test func anAddedSessionIsManualAndCorrectedFromTheStart() {
        let added = AddedSession(
            sessionKey: "added-1", userId: "alice", siteId: "hq", checkInAt: Self.t0, checkOutAt: Self.at(3_600),
            reason: "phone was broken")
        guard case .write(let session, let changes) = SessionLedger.add(added, existing: nil) else {
            Issue.record("expected a write")
            return
        }
        #expect(session.source == .manual && session.corrected && session.deviceId == nil)
        #expect(session.evidence.checkInReason == "phone was broken")
        #expect(changes["checkInAt"]?.after == RFC3339.format(Self.t0))
        #expect(SessionLedger.add(added, existing: session) == .answer(.exists("added-1")))
        var backwards = added
        backwards.checkOutAt = Self.at(-1)
        guard case .answer(.invalid(let field, _, _)) = SessionLedger.add(backwards, existing: nil) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(field == "checkOutAt")
    }
}
