import AttendanceModels
import Foundation

/// What changes a session, as ledger rows and back: a device's check-in, check-out or heartbeat
/// and an admin's correction, addition or void. The rebuild reads back exactly what was written.
extension LedgerEvent {
    public static func checkIn(_ command: CheckInCommand, now: Date) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.siteId = command.siteId.rawValue
        payload.deviceId = command.deviceId?.rawValue
        payload.source = command.source.rawValue
        payload.checkInReason = command.evidence.checkInReason
        payload.appVersion = command.evidence.appVersion
        payload.rule = command.evidence.rule
        payload.sampleCount = command.evidence.sampleCount
        payload.medianRSSI = command.evidence.medianRSSI
        payload.stdevDB = command.evidence.stdevDB
        payload.walking = command.evidence.walking
        payload.clockSkewSeconds = command.evidence.clockSkewSeconds
        return LedgerEvent(
            kind: .checkIn, sessionKey: command.sessionKey, userId: command.userId,
            actor: command.deviceId.map(LedgerActor.device) ?? .adminToken, receivedAt: now, deviceAt: command.at,
            payload: payload.encoded())
    }

    public static func sessionEvent(_ command: SessionEventCommand, now: Date) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.deviceId = command.deviceId?.rawValue
        payload.source = command.source.rawValue
        payload.reason = command.reason
        return LedgerEvent(
            kind: command.kind == .checkOut ? .checkOut : .heartbeat, sessionKey: command.sessionKey,
            userId: command.userId, actor: command.deviceId.map(LedgerActor.device) ?? .adminToken, receivedAt: now,
            deviceAt: command.at, payload: payload.encoded())
    }

    /// A correction, addition or void of `session` by `actor`, with what changed.
    public static func change(
        _ kind: LedgerKind, of session: SessionRecord, correction: SessionCorrection? = nil, reason: String,
        changes: [String: LedgerChange], requestId: String? = nil, actor: LedgerActor, now: Date
    ) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.reason = reason
        payload.changes = changes
        payload.requestId = requestId
        if kind == .sessionAdded {
            payload.siteId = session.siteId.rawValue
            payload.checkInAt = session.checkInAt.timeIntervalSince1970
            payload.checkOutAt = session.checkOutAt?.timeIntervalSince1970
        } else if let correction {
            payload.siteId = correction.siteId?.rawValue
            payload.checkInAt = correction.checkInAt?.timeIntervalSince1970
            payload.checkOutAt = correction.checkOutAt?.timeIntervalSince1970
        }
        return LedgerEvent(
            kind: kind, sessionKey: session.sessionKey, userId: session.userId, actor: actor, receivedAt: now,
            payload: payload.encoded())
    }

    /// The check-in this row recorded.
    func checkInCommand(_ payload: LedgerPayload) throws -> CheckInCommand {
        guard let sessionKey, let userId, let siteId = payload.siteId, let deviceAt else {
            throw LedgerReadError(id: id, expected: "a check-in with its session, employee, site and time")
        }
        let evidence = SessionEvidence(
            checkInReason: payload.checkInReason, appVersion: payload.appVersion, rule: payload.rule,
            sampleCount: payload.sampleCount, medianRSSI: payload.medianRSSI, stdevDB: payload.stdevDB,
            walking: payload.walking, clockSkewSeconds: payload.clockSkewSeconds)
        return CheckInCommand(
            sessionKey: sessionKey, userId: userId, siteId: SiteID(siteId),
            deviceId: payload.deviceId.map { DeviceID($0) },
            at: deviceAt, source: try source(payload), reason: payload.checkInReason, evidence: evidence)
    }

    /// The event's source: automatic where the row names none (rows written before sources were
    /// kept); a source this release does not know stops the read.
    private func source(_ payload: LedgerPayload) throws -> EventSource {
        guard let text = payload.source else { return .automatic }
        guard let source = EventSource(rawValue: text) else {
            throw LedgerReadError(id: id, expected: "a source this release knows, not '\(text.prefix(40))'")
        }
        return source
    }

    /// The check-out or heartbeat this row recorded.
    func sessionEventCommand(_ payload: LedgerPayload) throws -> SessionEventCommand {
        guard let sessionKey, let deviceAt else {
            throw LedgerReadError(id: id, expected: "a check-out or heartbeat with its session and time")
        }
        return SessionEventCommand(
            kind: kind == .checkOut ? .checkOut : .heartbeat, sessionKey: sessionKey,
            deviceId: payload.deviceId.map { DeviceID($0) }, userId: userId, at: deviceAt, reason: payload.reason,
            source: try source(payload))
    }
}

/// A ledger row that does not hold what its kind needs (the rebuild stops on it).
public struct LedgerReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var id: Int64
    public var expected: String
    public var description: String { "ledger row \(id) is not \(expected)" }
}
