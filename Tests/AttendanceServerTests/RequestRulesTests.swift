import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// `RequestRules.decide`, one test per transition, with no database.
@Suite struct RequestRulesTests {
    static let t0 = SessionLedgerTests.t0

    static func request(
        _ kind: CorrectionRequestRecord.Kind = .correction, state: CorrectionRequestRecord.State = .pending,
        site: SiteID? = "hq"
    ) -> CorrectionRequestRecord {
        CorrectionRequestRecord(
            id: "req-1", userId: "alice", kind: kind, state: state, sessionKey: kind == .correction ? "s-1" : nil,
            siteId: site, checkInAt: t0, checkOutAt: t0.addingTimeInterval(3_600), reason: "forgot", evidence: [:],
            createdAt: t0)
    }

    @Test func anUnknownRequestIsNotFound() {
        #expect(
            RequestRules.decide(nil, id: "req-9", approve: true, comment: nil, actor: .adminToken, now: Self.t0)
                == .answer(.notFound("req-9")))
    }

    @Test func aDecidedRequestStaysDecided() {
        let approved = Self.request(state: .approved)
        #expect(
            RequestRules.decide(approved, id: "req-1", approve: false, comment: "no", actor: .adminToken, now: Self.t0)
                == .answer(.alreadyDecided(approved)))
    }

    @Test func aRejectionChangesNoSession() {
        guard
            case .decide(let decided, let change) = RequestRules.decide(
                Self.request(), id: "req-1", approve: false, comment: "no record", actor: .adminToken, now: Self.t0)
        else {
            Issue.record("expected a decision")
            return
        }
        #expect(decided.state == .rejected && decided.comment == "no record" && decided.decidedAt == Self.t0)
        #expect(change == nil)
    }

    @Test func anApprovedCorrectionCorrectsItsSession() {
        let decision = RequestRules.decide(
            Self.request(), id: "req-1", approve: true, comment: nil, actor: .adminToken, now: Self.t0)
        guard case .decide(let decided, .correct(let key, let correction)?) = decision else {
            Issue.record("expected a correction, got \(decision)")
            return
        }
        #expect(decided.state == .approved && decided.decidedBy == .adminToken)
        #expect(key == "s-1" && correction.reason == "request req-1: forgot")
    }

    @Test func anApprovedMissingSessionAddsOne() {
        let decision = RequestRules.decide(
            Self.request(.missingSession), id: "req-1", approve: true, comment: nil, actor: .adminToken, now: Self.t0)
        guard case .decide(_, .add(let added)?) = decision else {
            Issue.record("expected an addition")
            return
        }
        #expect(added.sessionKey == "request-req-1" && added.siteId == "hq" && added.checkInAt == Self.t0)
        let siteless = RequestRules.decide(
            Self.request(.missingSession, site: nil), id: "req-1", approve: true, comment: nil, actor: .adminToken,
            now: Self.t0)
        guard case .answer(.correctionRefused(.invalid(let field, _, _))) = siteless else {
            Issue.record("expected a refusal, got \(siteless)")
            return
        }
        #expect(field == "request")
    }
}
