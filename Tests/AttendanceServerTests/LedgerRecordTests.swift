import AttendanceModels
import AttendanceRules
import Foundation
import Testing

/// A ledger row's typed content: each case writes its payload and reads back equal; what this
/// release can't read is an error naming the row, never a default.
@Suite struct LedgerRecordTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let key = SessionKey("s-1")

    static func row(_ record: LedgerRecord, sessionKey: SessionKey? = key, deviceAt: Date? = now) -> LedgerEvent {
        var event = LedgerEvent(
            record, sessionKey: sessionKey, userId: "alice", actor: .adminToken, receivedAt: now, deviceAt: deviceAt)
        event.id = 42
        return event
    }

    static let records: [LedgerRecord] = [
        .checkIn(
            .init(
                siteId: "hq", deviceId: "phone-a", source: .manual,
                evidence: SessionEvidence(
                    checkInReason: "forgot", appVersion: "1.2", rule: "strongMedian", sampleCount: 12,
                    medianRSSI: -71.5, stdevDB: 2.25, walking: false, clockSkewSeconds: -3))),
        .checkOut(.init(deviceId: "phone-a", source: .automatic, reason: "regionExit")),
        .heartbeat(.init(deviceId: nil, source: .automatic, reason: nil)),
        .sessionCorrected(
            .init(
                reason: "gate log", changes: ["checkInAt": LedgerChange(before: "a", after: "b")], requestId: "r-1",
                checkInAt: now)),
        .sessionAdded(
            .init(
                reason: "forgot the phone", changes: ["status": LedgerChange(before: nil, after: "closed")],
                siteId: "hq", checkInAt: now, checkOutAt: now.addingTimeInterval(3_600))),
        .sessionVoided(
            .init(reason: "duplicate", changes: ["status": LedgerChange(before: "closed", after: "voided")])),
        .requestFiled(
            .init(
                requestId: "r-1", kind: .missingSession, siteId: "hq", checkInAt: now, checkOutAt: nil,
                reason: "no signal", evidence: ["lastBeacon": "08:01"])),
        .requestApproved(.init(requestId: "r-1", comment: nil)),
        .requestRejected(.init(requestId: "r-2", comment: "no record at the gate")),
        .audit(.init(kind: .siteCreated, target: "hq", changes: ["timeZone": LedgerChange(before: nil, after: "UTC")])),
        .audit(.init(kind: .accountSignedIn, target: "account-1", changes: [:])),
        .audit(
            .init(
                kind: .payPeriodReopened, target: "payPeriod/2026-11-01",
                changes: ["state": LedgerChange(before: "locked", after: "open")], reason: "late correction")),
    ]

    @Test(arguments: records) func eachRecordReadsBackAsWritten(record: LedgerRecord) throws {
        let event = Self.row(record)
        #expect(event.kind == record.kind)
        #expect(try event.record() == record)
    }

    @Test func anUnknownKindIsAnErrorNamingTheRow() {
        var event = Self.row(.heartbeat(.init(deviceId: nil, source: .automatic, reason: nil)))
        event.kind = LedgerKind(rawValue: "session.teleported")
        #expect(throws: LedgerReadError(id: 42, expected: "a kind this release knows, not 'session.teleported'")) {
            try event.record()
        }
    }

    @Test func anUnknownFieldIsAnErrorNamingTheRowAndTheField() throws {
        var event = Self.row(.checkOut(.init(deviceId: nil, source: .automatic, reason: "regionExit")))
        event.payload = Data(#"{"reason":"regionExit","source":"automatic","teleported":true}"#.utf8)
        let error = try #require(throws: LedgerReadError.self) { try event.record() }
        #expect(error.id == 42)
        #expect(error.expected.contains("'teleported' is unknown"))
    }

    @Test func aLaterVersionIsAnError() {
        var event = Self.row(.checkOut(.init(deviceId: nil, source: .automatic, reason: "regionExit")))
        event.payload = Data(#"{"reason":"regionExit","version":2}"#.utf8)
        #expect(throws: LedgerReadError(id: 42, expected: "a payload of version 1, not version 2")) {
            try event.record()
        }
    }

    @Test func aFieldOfTheWrongTypeIsAnError() throws {
        var event = Self.row(.checkOut(.init(deviceId: nil, source: .automatic, reason: "regionExit")))
        event.payload = Data(#"{"reason":7}"#.utf8)
        let error = try #require(throws: LedgerReadError.self) { try event.record() }
        #expect(error.expected.hasPrefix("a payload of known fields with their types"))
    }

    @Test func whatAKindNeedsIsRequired() {
        let checkIn = Self.row(
            .checkIn(.init(siteId: "hq", deviceId: nil, source: .automatic, evidence: SessionEvidence())), deviceAt: nil
        )
        #expect(throws: LedgerReadError(id: 42, expected: "a check-in with its session, employee, site and time")) {
            try checkIn.record()
        }
        var filed = Self.row(.requestApproved(.init(requestId: "r-1", comment: nil)))
        filed.kind = .requestFiled
        #expect(throws: LedgerReadError(id: 42, expected: "a filed request with its id and kind")) {
            try filed.record()
        }
        var unknownSource = Self.row(.checkOut(.init(deviceId: nil, source: .automatic, reason: "x")))
        unknownSource.payload = Data(#"{"reason":"x","source":"telepathy"}"#.utf8)
        #expect(throws: LedgerReadError(id: 42, expected: "a source this release knows, not 'telepathy'")) {
            try unknownSource.record()
        }
    }

    @Test func everyKindIsADeviceEventASessionChangeARequestOrAnAudit() {
        let typed: Set<LedgerKind> = [
            .checkIn, .checkOut, .heartbeat, .sessionCorrected, .sessionAdded, .sessionVoided, .requestFiled,
            .requestApproved, .requestRejected,
        ]
        #expect(typed.isDisjoint(with: LedgerKind.auditKinds))
        #expect(LedgerKind.auditKinds.count == 30)
        #expect(LedgerKind.auditKinds.isSuperset(of: [.employeeReactivated, .accountTOTPReset, .accountPolicyChanged]))
    }
}
