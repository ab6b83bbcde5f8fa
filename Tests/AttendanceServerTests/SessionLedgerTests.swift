import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// `SessionLedger`'s rules, one test per transition, with no database.
@Suite struct SessionLedgerTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_338_000)

    static func command(user: UserID = "alice", at offset: Double = 0) -> CheckInCommand {
        CheckInCommand(
            sessionKey: "s-1", userId: user, siteId: "hq", deviceId: "phone-a", at: t0.addingTimeInterval(offset),
            source: .automatic)
    }

    static func session(
        checkOut: Double? = nil, lastSeen: Double = 0, checkOutSource: EventSource? = .automatic
    ) -> SessionRecord {
        SessionRecord(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: "phone-a", checkInAt: t0,
            checkOutAt: checkOut.map { t0.addingTimeInterval($0) },
            checkOutReason: checkOut == nil ? nil : "regionExit",
            lastSeenAt: t0.addingTimeInterval(lastSeen), source: .automatic,
            evidence: SessionEvidence(checkOutSource: checkOut == nil ? nil : checkOutSource))
    }

    static func event(
        _ kind: SessionEventCommand.Kind, at offset: Double, user: UserID? = "alice"
    ) -> SessionEventCommand {
        SessionEventCommand(
            kind: kind, sessionKey: "s-1", deviceId: "phone-a", userId: user, at: t0.addingTimeInterval(offset),
            reason: kind == .checkOut ? "regionExit" : nil, source: .automatic)
    }

    static func pending(_ id: Int64, _ kind: SessionEventCommand.Kind, at offset: Double, user: UserID? = "alice")
        -> SessionLedger.PendingEvent
    {
        SessionLedger.PendingEvent(
            id: id, kind: kind, at: t0.addingTimeInterval(offset), reason: kind == .checkOut ? "regionExit" : nil,
            userId: user, source: .automatic)
    }

    // MARK: Check-in

    @Test func aKnownSessionKeyIsFoundNotRecordedAgain() {
        let known = Self.session()
        #expect(
            SessionLedger.checkIn(Self.command(), known: known, siteIsActive: true, pending: [], now: Self.t0)
                == .answer(.recorded(known, created: false)))
    }

    @Test func aCheckInAtADeletedSiteRecordsNothing() {
        #expect(
            SessionLedger.checkIn(Self.command(), known: nil, siteIsActive: false, pending: [], now: Self.t0)
                == .answer(.siteInactive("hq")))
    }

    @Test func aCheckInOfADeactivatedEmployeeRecordsNothing() {
        let decision = SessionLedger.checkIn(
            Self.command(), known: nil, siteIsActive: true, employeeIsActive: false, pending: [],
            now: Self.t0)
        #expect(decision == .answer(.employeeInactive("alice")))
    }

    @Test func aNewCheckInIsAnOpenSessionSeenAtItsStart() {
        let decision = SessionLedger.checkIn(Self.command(), known: nil, siteIsActive: true, pending: [], now: Self.t0)
        #expect(decision == .record(Self.session(), applied: []))
    }

    @Test func whatArrivedBeforeTheCheckInIsAppliedInArrivalOrder() {
        let pending = [
            Self.pending(2, .checkOut, at: 600), Self.pending(1, .heartbeat, at: 300),
            Self.pending(3, .checkOut, at: 900),
        ]
        let decision = SessionLedger.checkIn(
            Self.command(), known: nil, siteIsActive: true, pending: pending, now: Self.t0)
        // The first check-out to arrive wins; the later one changes nothing but is consumed.
        #expect(decision == .record(Self.session(checkOut: 600, lastSeen: 600), applied: [1, 2, 3]))
    }

    @Test func anotherUsersEarlyCheckOutIsNeverAppliedAndIsKept() {
        let pending = [
            Self.pending(1, .checkOut, at: 600, user: "bob"), Self.pending(2, .heartbeat, at: 700, user: "bob"),
        ]
        let decision = SessionLedger.checkIn(
            Self.command(), known: nil, siteIsActive: true, pending: pending, now: Self.t0)
        #expect(decision == .record(Self.session(), applied: []))
    }

    @Test func anAdminsEarlyEventIsApplied() {
        let pending = [Self.pending(1, .heartbeat, at: 300, user: nil)]
        let decision = SessionLedger.checkIn(
            Self.command(), known: nil, siteIsActive: true, pending: pending, now: Self.t0)
        #expect(decision == .record(Self.session(lastSeen: 300), applied: [1]))
    }

    @Test func anEarlyCheckOutBeforeTheCheckInIsKeptNotApplied() {
        let pending = [Self.pending(1, .checkOut, at: -60), Self.pending(2, .heartbeat, at: 60)]
        let decision = SessionLedger.checkIn(
            Self.command(), known: nil, siteIsActive: true, pending: pending, now: Self.t0)
        #expect(decision == .record(Self.session(lastSeen: 60), applied: [2]))
    }

    // MARK: Check-out and heartbeat

    @Test func anEventWithoutItsSessionWaitsForTheCheckIn() {
        #expect(SessionLedger.apply(Self.event(.checkOut, at: 600), to: nil) == .storePending)
    }

    @Test func anEventForAnotherUsersSessionIsForbidden() {
        #expect(
            SessionLedger.apply(Self.event(.checkOut, at: 600, user: "bob"), to: Self.session())
                == .answer(.forbidden(owner: "alice")))
    }

    @Test func aCheckOutBeforeTheOpenSessionsCheckInIsRefused() {
        #expect(
            SessionLedger.apply(Self.event(.checkOut, at: -1), to: Self.session())
                == .answer(.checkOutBeforeCheckIn(checkInAt: Self.t0)))
    }

    @Test func theFirstCheckOutClosesTheSession() {
        #expect(
            SessionLedger.apply(Self.event(.checkOut, at: 600), to: Self.session())
                == .update(Self.session(checkOut: 600, lastSeen: 600)))
    }

    @Test func aLaterCheckOutChangesNothing() {
        let closed = Self.session(checkOut: 600, lastSeen: 600)
        #expect(SessionLedger.apply(Self.event(.checkOut, at: 900), to: closed) == .update(closed))
        #expect(SessionLedger.apply(Self.event(.checkOut, at: -5), to: closed) == .update(closed))
    }

    @Test func aHeartbeatMovesLastSeenForwardOnly() {
        let seen = Self.session(lastSeen: 600)
        #expect(SessionLedger.apply(Self.event(.heartbeat, at: 900), to: seen) == .update(Self.session(lastSeen: 900)))
        #expect(SessionLedger.apply(Self.event(.heartbeat, at: 300), to: seen) == .update(seen))
    }

    @Test func anAdminsEventAppliesToAnyonesSession() {
        #expect(
            SessionLedger.apply(Self.event(.heartbeat, at: 900, user: nil), to: Self.session())
                == .update(Self.session(lastSeen: 900)))
    }
}
