import AttendanceModels
import AttendanceRules
import Foundation
import GRDB

/// Migration "2026-11-25 sessions into the ledger", with its own SQL as each schema was then (on
/// SQLite camelCase names): every pending row and every session recorded before the ledger becomes
/// its rows (actor `migration`), so that a rebuild gives them back as they were. Frozen: it reads
/// and writes no table through the repository's code, whose SQL follows today's schema.
package enum LegacyLedgerMove {
    package static func run(_ db: Database) throws {
        let pending = try Row.fetchAll(db, sql: "SELECT * FROM pendingSessionEvents ORDER BY id")
        try db.execute(sql: "DELETE FROM pendingSessionEvents")
        for row in pending {
            // A kind this release does not know stops the upgrade, naming the row.
            let kind = try StoredValue.decode(
                row["kind"] as String, as: SessionEventCommand.Kind.self, table: "pendingSessionEvents",
                row: "\(row["id"] as Int64)", column: "kind")
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

extension LegacyLedgerMove {
    /// The same migration on PostgreSQL, with its own SQL as the schema was then.
    package static func run(_ tx: PostgresTransaction) async throws {
        let pending = try await tx.query(
            """
            SELECT id, session_key, kind, at, reason, user_id, received_at, source FROM pending_session_events
            ORDER BY id
            """)
        try await tx.execute("DELETE FROM pending_session_events")
        for row in pending {
            let pendingId: Int64 = try row[0]
            let kind = try StoredValue.decode(
                try row[2] as String, as: SessionEventCommand.Kind.self, table: "pending_session_events",
                row: "\(pendingId)", column: "kind")
            let key: SessionKey = try row[1]
            let userId: UserID? = try row[5]
            let source = (try row[7] as String?).flatMap(EventSource.init(rawValue:))
            let at: Date = try row[3]
            let receivedAt: Date = try row[6]
            let reason: String? = try row[4]
            let event = LedgerMigration.sessionEvent(
                kind: kind, key: key, userId: userId, at: at, reason: reason, source: source, deviceId: nil,
                receivedAt: receivedAt)
            let id = try await append(event, tx)
            try await tx.execute(
                """
                INSERT INTO pending_session_events (id, session_key, kind, at, reason, user_id, received_at, source)
                VALUES (\(id), \(key), \(kind.rawValue), \(at), \(reason), \(userId), \(receivedAt),
                        \(source?.rawValue))
                """)
        }
        let sessions = try await tx.query(
            """
            SELECT session_key, user_id, site_id, device_id, check_in_at, check_out_at, check_out_reason, last_seen_at,
                source, check_in_reason, check_out_source, app_version, evidence_rule, evidence_samples,
                evidence_median_rssi, evidence_stdev_db, evidence_walking, clock_skew_seconds, corrected, voided_at,
                void_reason, created_at
            FROM sessions ORDER BY created_at, session_key
            """)
        for row in sessions {
            for event in LedgerMigration.events(for: try session(row), createdAt: try row[21]) {
                _ = try await append(event, tx)
            }
        }
    }

    private static func append(_ event: LedgerEvent, _ tx: PostgresTransaction) async throws -> Int64 {
        let id = try await tx.value(
            """
            INSERT INTO ledger_events (kind, session_key, user_id, actor, received_at, device_at, payload, personal,
                                       personal_digest, hash)
            VALUES (\(event.kind.rawValue), \(event.sessionKey), \(event.userId), \(event.actor.rawValue),
                    \(event.receivedAt), \(event.deviceAt), \(String(decoding: event.payload, as: UTF8.self)),
                    \(event.personal.map { String(decoding: $0, as: UTF8.self) }), \(event.personalDigest),
                    \(event.hash))
            RETURNING id
            """, as: Int64.self)
        guard let id else { throw RepositoryError(kind: .conflict, detail: "the ledger row was not written") }
        try await tx.execute("INSERT INTO ledger_unsealed (event_id) VALUES (\(id))")
        return id
    }

    /// A session row as that release read it (by position).
    private static func session(_ row: SQLRow) throws -> SessionRecord {
        let evidence = SessionEvidence(
            checkInReason: try row[9], checkOutSource: (try row[10] as String?).flatMap(EventSource.init(rawValue:)),
            appVersion: try row[11], rule: try row[12], sampleCount: try row[13], medianRSSI: try row[14],
            stdevDB: try row[15], walking: try row[16], clockSkewSeconds: try row[17])
        return SessionRecord(
            sessionKey: try row[0], userId: try row[1], siteId: try row[2], deviceId: try row[3],
            checkInAt: try row[4], checkOutAt: try row[5], checkOutReason: try row[6], lastSeenAt: try row[7],
            source: EventSource(rawValue: try row[8]) ?? .automatic, evidence: evidence, corrected: try row[18],
            voidedAt: try row[19], voidReason: try row[20])
    }
}
