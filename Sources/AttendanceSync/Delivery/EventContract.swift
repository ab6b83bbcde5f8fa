import AttendanceModels
import Foundation

/// The engine's events in the contract's generated types: the device's one mapping of them, for
/// the single endpoints and the batch alike.
enum EventContract {
    /// What the device says about itself and the sites it knows, beside each event.
    struct Context: Sendable {
        var platform: String
        var appVersion: String?
        /// The server's site ids by beacon (remote config), sent as `siteId` when known.
        var siteIDs: [SiteBeacon: SiteID]
    }

    static func checkIn(_ event: AttendanceEvent, context: Context) -> Components.Schemas.CheckInRequest {
        .init(
            userId: event.userID.rawValue, siteId: context.siteIDs[event.site]?.rawValue,
            beacon: .init(uuid: event.site.uuid.uuidString, major: Int(event.site.major)), ts: event.timestamp,
            sessionKey: event.sessionKey.rawValue, source: event.source == .manual ? .manual : .automatic,
            reason: event.reason,
            deviceMeta: .init(
                deviceId: event.deviceID.rawValue, platform: context.platform, appVersion: context.appVersion),
            evidence: event.evidence.map {
                .init(
                    sampleCount: $0.sampleCount, medianRSSI: $0.medianRSSI, stdevDB: $0.stdevDB, walking: $0.walking,
                    rule: $0.rule)
            })
    }

    static func checkOut(_ event: AttendanceEvent) -> Components.Schemas.CheckOutRequest {
        .init(
            sessionKey: event.sessionKey.rawValue, ts: event.timestamp, reason: event.reason ?? "unspecified",
            source: event.source == .manual ? .manual : .automatic)
    }

    static func heartbeat(_ event: AttendanceEvent) -> Components.Schemas.HeartbeatRequest {
        .init(sessionKey: event.sessionKey.rawValue, ts: event.timestamp)
    }

    /// The event as an item of `POST /v1/attendance/events`: the same fields as its single
    /// endpoint's body, under its own idempotency key.
    static func batchItem(_ event: AttendanceEvent, context: Context) -> Components.Schemas.EventBatchItem {
        let key = event.idempotencyKey
        switch event.kind {
        case .checkIn:
            let body = checkIn(event, context: context)
            let checkIn = Components.Schemas.BatchCheckIn(
                userId: body.userId, siteId: body.siteId,
                beacon: .init(uuid: body.beacon.uuid, major: Int64(body.beacon.major)), ts: body.ts,
                sessionKey: body.sessionKey, source: body.source.rawValue, reason: body.reason,
                deviceMeta: body.deviceMeta,
                evidence: body.evidence.map {
                    .init(
                        sampleCount: Int64($0.sampleCount), medianRSSI: $0.medianRSSI, stdevDB: $0.stdevDB,
                        walking: $0.walking, rule: $0.rule)
                })
            return .init(idempotencyKey: key, _type: .checkIn, checkIn: checkIn)
        case .checkOut:
            let body = checkOut(event)
            return .init(
                idempotencyKey: key, _type: .checkOut,
                checkOut: .init(
                    sessionKey: body.sessionKey, ts: body.ts, reason: body.reason, source: body.source.rawValue))
        case .heartbeat:
            return .init(
                idempotencyKey: key, _type: .heartbeat,
                heartbeat: .init(sessionKey: event.sessionKey.rawValue, ts: event.timestamp))
        }
    }

    /// The receipt member of a device event's answer (Session, PendingEvent), the rest ignored.
    struct Answered: Decodable {
        var receipt: Components.Schemas.EventReceipt?
    }

    /// An answer's receipt; nil when a proof hash is not base64 of 32 bytes (the receipt is then
    /// fetched with the pages, `ReceiptKeeper`, which names such a one).
    static func receipt(_ wire: Components.Schemas.EventReceipt) -> AnswerReceipt? {
        guard let proof = try? RecordClient.hashes(wire.proof) else { return nil }
        return AnswerReceipt(
            receipt: LedgerReceipt(rowId: wire.rowId, leafIndex: wire.leafIndex, entry: wire.entry, proof: proof),
            checkpoint: wire.checkpoint)
    }
}
