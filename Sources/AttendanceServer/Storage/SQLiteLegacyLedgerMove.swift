import AttendanceModels
import Foundation
import GRDB

/// Migration "2026-11-25 sessions into the ledger" on SQLite, with its own SQL as the schema was
/// then (camelCase names): every pending row and every session recorded before the ledger becomes
/// its rows (actor `migration`), so that a rebuild gives them back as they were. Frozen: it reads
/// and writes no table through the repository's code, whose SQL follows today's schema.
enum LegacyLedgerMove {
    static func run(_ db: Database) throws {
        let pending = try Row.fetchAll(db, sql: "SELECT * FROM pendingSessionEvents ORDER BY id")
        try db.execute(sql: "DELETE FROM pendingSessionEvents")
        for row in pending {
            let kind = SessionEventCommand.Kind(rawValue: row["kind"]) ?? .heartbeat
            let key = SessionKey(row["sessionKey"])
            let userId = (row["userId"] as String?).map { UserID($0) }
            let source = (row["source"] as String?).flatMap(EventSource.init(rawValue:))
            let at = Date(timeIntervalSince1970: row["at"])
            let receivedAt = Date(timeIntervalSince1970: row["receivedAt"])
            let event = LedgerMigration.sessionEvent(
                kind: kind, key: key, userId: userId, at: at, reason: row["reason"], source: source,
                deviceId: nil, receivedAt: receivedAt)
            let id = try append(event, db)
            try db.execute(
                sql: """
                    INSERT INTO pendingSessionEvents (id, sessionKey, kind, at, reason, userId, receivedAt, source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, key.rawValue, kind.rawValue, at.timeIntervalSince1970, row["reason"] as String?,
                    userId?.rawValue, receivedAt.timeIntervalSince1970, source?.rawValue,
                ])
        }
        let columns = """
            sessionKey, userId, siteId, deviceId, checkInAt, checkOutAt, checkOutReason, lastSeenAt, source, \
            checkInReason, checkOutSource, appVersion, evidenceRule, evidenceSamples, evidenceMedianRSSI, \
            evidenceStdevDB, evidenceWalking, clockSkewSeconds, corrected, voidedAt, voidReason, createdAt
            """
        for row in try Row.fetchAll(db, sql: "SELECT \(columns) FROM sessions ORDER BY createdAt, sessionKey") {
            for event in LedgerMigration.events(for: session(row), createdAt: Date(timeIntervalSince1970: row[21])) {
                try append(event, db)
            }
        }
    }

    private static func append(_ event: LedgerEvent, _ db: Database) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO ledgerEvents (kind, sessionKey, userId, actor, receivedAt, deviceAt, payload, personal,
                                          personalDigest, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                event.kind.rawValue, event.sessionKey?.rawValue, event.userId?.rawValue, event.actor.rawValue,
                event.receivedAt.timeIntervalSince1970, event.deviceAt?.timeIntervalSince1970,
                String(decoding: event.payload, as: UTF8.self),
                event.personal.map { String(decoding: $0, as: UTF8.self) }, event.personalDigest, event.hash,
            ])
        return db.lastInsertedRowID
    }

    /// A session row as that release read it (by position, in `columns`' order).
    private static func session(_ row: Row) -> SessionRecord {
        let checkOut: Double? = row[5]
        let device: String? = row[3]
        let checkOutSource: String? = row[10]
        let voidedAt: Double? = row[19]
        let evidence = SessionEvidence(
            checkInReason: row[9], checkOutSource: checkOutSource.flatMap(EventSource.init(rawValue:)),
            appVersion: row[11], rule: row[12], sampleCount: row[13], medianRSSI: row[14], stdevDB: row[15],
            walking: row[16], clockSkewSeconds: row[17])
        return SessionRecord(
            sessionKey: SessionKey(row[0]), userId: UserID(row[1]), siteId: SiteID(row[2]),
            deviceId: device.map { DeviceID($0) }, checkInAt: Date(timeIntervalSince1970: row[4]),
            checkOutAt: checkOut.map(Date.init(timeIntervalSince1970:)), checkOutReason: row[6],
            lastSeenAt: Date(timeIntervalSince1970: row[7]), source: EventSource(rawValue: row[8]) ?? .automatic,
            evidence: evidence, corrected: row[18], voidedAt: voidedAt.map(Date.init(timeIntervalSince1970:)),
            voidReason: row[20])
    }
}
