import AttendanceModels
import Foundation

/// What changes a session, as ledger rows and back: a device's check-in, check-out or heartbeat
/// and an admin's correction, addition or void. The rebuild reads back exactly what was written.
extension LedgerEvent {
    public static func checkIn(_ command: CheckInCommand, now: Date) -> LedgerEvent {
        var evidence = command.evidence
        evidence.checkOutSource = nil
        let record = LedgerRecord.checkIn(
            .init(siteId: command.siteId, deviceId: command.deviceId, source: command.source, evidence: evidence))
        return LedgerEvent(
            record, sessionKey: command.sessionKey, userId: command.userId,
            actor: command.deviceId.map(LedgerActor.device) ?? .adminToken, receivedAt: now, deviceAt: command.at)
    }

    public static func sessionEvent(_ command: SessionEventCommand, now: Date) -> LedgerEvent {
        let event = LedgerRecord.SessionEvent(
            deviceId: command.deviceId, source: command.source, reason: command.reason)
        return LedgerEvent(
            command.kind == .checkOut ? .checkOut(event) : .heartbeat(event), sessionKey: command.sessionKey,
            userId: command.userId, actor: command.deviceId.map(LedgerActor.device) ?? .adminToken, receivedAt: now,
            deviceAt: command.at)
    }

    /// A correction, addition or void of `session` by `actor`, with what changed.
    public static func change(
        _ kind: SessionChangeKind, of session: SessionRecord, correction: SessionCorrection? = nil, reason: String,
        changes: [String: LedgerChange], requestId: CorrectionRequestID? = nil, actor: LedgerActor, now: Date
    ) -> LedgerEvent {
        var change = LedgerRecord.SessionChange(reason: reason, changes: changes, requestId: requestId)
        let record: LedgerRecord
        switch kind {
        case .added:
            change.siteId = session.siteId
            change.checkInAt = session.checkInAt
            change.checkOutAt = session.checkOutAt
            record = .sessionAdded(change)
        case .corrected:
            change.siteId = correction?.siteId
            change.checkInAt = correction?.checkInAt
            change.checkOutAt = correction?.checkOutAt
            change.closingReason = correction.flatMap {
                $0.closingReason == SessionCorrection.corrected ? nil : $0.closingReason
            }
            record = .sessionCorrected(change)
        case .voided:
            record = .sessionVoided(change)
        }
        return LedgerEvent(
            record, sessionKey: session.sessionKey, userId: session.userId, actor: actor, receivedAt: now)
    }

    /// A person's change of a session.
    public enum SessionChangeKind: Hashable, Sendable { case corrected, added, voided }

    /// The check-in this row recorded.
    package func checkInCommand(_ checkIn: LedgerRecord.CheckIn) throws -> CheckInCommand {
        guard let sessionKey, let userId, let deviceAt else {
            throw LedgerReadError(id: id, expected: "a check-in with its session, employee, site and time")
        }
        return CheckInCommand(
            sessionKey: sessionKey, userId: userId, siteId: checkIn.siteId, deviceId: checkIn.deviceId, at: deviceAt,
            source: checkIn.source, reason: checkIn.evidence.checkInReason, evidence: checkIn.evidence)
    }

    /// The check-out or heartbeat this row recorded.
    package func sessionEventCommand(_ event: LedgerRecord.SessionEvent) throws -> SessionEventCommand {
        guard let sessionKey, let deviceAt else {
            throw LedgerReadError(id: id, expected: "a check-out or heartbeat with its session and time")
        }
        return SessionEventCommand(
            kind: kind == .checkOut ? .checkOut : .heartbeat, sessionKey: sessionKey, deviceId: event.deviceId,
            userId: userId, at: deviceAt, reason: event.reason, source: event.source)
    }
}

/// A ledger row that does not hold what its kind needs (the rebuild stops on it).
public struct LedgerReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var id: Int64
    public var expected: String

    package init(id: Int64, expected: String) {
        self.id = id
        self.expected = expected
    }
    public var description: String { "ledger row \(id) is not \(expected)" }
}
