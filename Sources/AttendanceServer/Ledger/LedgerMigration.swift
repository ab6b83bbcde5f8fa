import AttendanceModels
import Foundation

/// The upgrade to the ledger (both backends' migration "2026-11-25 sessions into the ledger"):
/// a session recorded before the ledger becomes the rows that give it back through
/// `LedgerReplay`: its check-in (with its evidence), its check-out, and a heartbeat at its last
/// sighting when that is later than both. Pending rows become rows of their own, written first
/// (they arrived before any check-in could take them). The actor is `migration`.
///
/// Migrations should not depend on the app's types; this one does, on purpose: the rows must hash
/// as `LedgerHash` (version `ledger-v1`) hashes them, and a later format would be a new version.
enum LedgerMigration {
    static func events(for session: SessionRecord, createdAt: Date) -> [LedgerEvent] {
        var checkIn = CheckInCommand(
            sessionKey: session.sessionKey, userId: session.userId, siteId: session.siteId,
            deviceId: session.deviceId, at: session.checkInAt, source: session.source,
            reason: session.evidence.checkInReason, evidence: session.evidence)
        checkIn.evidence.checkOutSource = nil
        var events = [migrated(LedgerEvent.checkIn(checkIn, now: createdAt))]
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

    static func sessionEvent(
        kind: SessionEventCommand.Kind, key: SessionKey, userId: UserID?, at: Date, reason: String?,
        source: EventSource?, deviceId: DeviceID?, receivedAt: Date
    ) -> LedgerEvent {
        let command = SessionEventCommand(
            kind: kind, sessionKey: key, deviceId: deviceId, userId: userId, at: at, reason: reason,
            source: source ?? .automatic)
        return migrated(LedgerEvent.sessionEvent(command, now: receivedAt))
    }

    private static func migrated(_ event: LedgerEvent) -> LedgerEvent {
        LedgerEvent(
            kind: event.kind, sessionKey: event.sessionKey, userId: event.userId, actor: .migration,
            receivedAt: event.receivedAt, deviceAt: event.deviceAt, payload: event.payload)
    }
}
