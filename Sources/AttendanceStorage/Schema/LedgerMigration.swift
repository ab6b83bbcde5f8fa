import AttendanceModels
import AttendanceRules
import Foundation

/// The upgrade to the ledger (both backends' migration "2026-11-25 sessions into the ledger"):
/// a session recorded before the ledger becomes the rows that give it back through
/// `LedgerReplay`: its check-in (with its evidence), its check-out, and a heartbeat at its last
/// sighting when that is later than both. Pending rows become rows of their own, written first
/// (they arrived before any check-in could take them). The actor is `migration`.
///
/// Frozen with the migration: it writes each payload's fields itself, as the builders of
/// 2026-11-25 did, so a later change of the builders (or of `LedgerRecord`) can't change what the
/// migration writes. It depends only on the stored format (`LedgerPayload`, `LedgerEvent`) and on
/// `LedgerHash` (version `ledger-v1`), which no release may change.
package enum LedgerMigration {
    package static func events(for session: SessionRecord, createdAt: Date) -> [LedgerEvent] {
        var payload = LedgerPayload()
        payload.siteId = session.siteId.rawValue
        payload.deviceId = session.deviceId?.rawValue
        payload.source = session.source.rawValue
        payload.checkInReason = session.evidence.checkInReason
        payload.appVersion = session.evidence.appVersion
        payload.rule = session.evidence.rule
        payload.sampleCount = session.evidence.sampleCount
        payload.medianRSSI = session.evidence.medianRSSI
        payload.stdevDB = session.evidence.stdevDB
        payload.walking = session.evidence.walking
        payload.clockSkewSeconds = session.evidence.clockSkewSeconds
        var events = [
            LedgerEvent(
                kind: .checkIn, sessionKey: session.sessionKey, userId: session.userId, actor: .migration,
                receivedAt: createdAt, deviceAt: session.checkInAt, payload: payload.encoded())
        ]
        if let checkOutAt = session.checkOutAt {
            events.append(
                sessionEvent(
                    kind: .checkOut, key: session.sessionKey, userId: session.userId, at: checkOutAt,
                    reason: session.checkOutReason, source: session.evidence.checkOutSource,
                    deviceId: session.deviceId, receivedAt: createdAt))
        }
        if session.lastSeenAt > max(session.checkInAt, session.checkOutAt ?? session.checkInAt) {
            events.append(
                sessionEvent(
                    kind: .heartbeat, key: session.sessionKey, userId: session.userId, at: session.lastSeenAt,
                    reason: nil, source: .automatic, deviceId: session.deviceId, receivedAt: createdAt))
        }
        return events
    }

    package static func sessionEvent(
        kind: SessionEventCommand.Kind, key: SessionKey, userId: UserID?, at: Date, reason: String?,
        source: EventSource?, deviceId: DeviceID?, receivedAt: Date
    ) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.deviceId = deviceId?.rawValue
        payload.source = (source ?? .automatic).rawValue
        payload.reason = reason
        return LedgerEvent(
            kind: kind == .checkOut ? .checkOut : .heartbeat, sessionKey: key, userId: userId, actor: .migration,
            receivedAt: receivedAt, deviceAt: at, payload: payload.encoded())
    }
}
