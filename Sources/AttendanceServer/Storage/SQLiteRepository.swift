import AttendanceModels
import Foundation
import GRDB

/// The default store: one SQLite file in WAL mode with foreign keys on (`./attendance.sqlite`).
/// `synchronous = FULL`: a 2xx means committed, and committed survives power loss.
public final class SQLiteRepository: AttendanceRepository, AuthRepository, AdminRepository, AccountRepository,
    TimesheetRepository, PayPeriodRepository,
    SQLStorage,
    Sendable
{
    public let backendName = "sqlite"
    let writer: any DatabaseWriter
    /// Device writes (check-ins, check-outs, heartbeats, batches) commit in groups.
    let group: SQLiteGroupCommit
    /// The storage port the shared storage code runs on (`SQLStorage`).
    let sqlite: SQLiteDatabase
    public var database: any SQLDatabase { sqlite }

    public static func open(path: String) throws -> SQLiteRepository {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer after opening, not in `prepareDatabase`: GRDB's DatabasePool switches
        // the file to WAL after that hook and sets its writer to `synchronous = NORMAL` while doing
        // so (`Database.setUpWALMode`), where a commit is not synced and a 2xx could be lost to a
        // power loss. The writer is the one connection that commits.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try SQLiteRepository(writer: pool)
    }

    /// The journal mode and synchronous level in force on the connection that commits.
    func durabilitySettings() throws -> (journalMode: String, synchronous: Int) {
        try writer.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            )
        }
    }

    /// Nothing to release: GRDB closes the file when the last reference goes.
    public func shutdown() {}

    public func ping() async throws {
        _ = try await writer.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }
    }

    public static func inMemory() throws -> SQLiteRepository {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        return try SQLiteRepository(writer: DatabaseQueue(configuration: configuration))
    }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        self.group = SQLiteGroupCommit(writer: writer)
        self.sqlite = SQLiteDatabase(writer: writer, group: group)
        try Self.migrator.migrate(writer)
    }

    // MARK: - Idempotency

    /// A new key is claimed; a claim an earlier release left unanswered past its lease is taken
    /// over; otherwise the key's earlier answer, a payload mismatch, or in flight.
    static func claim(scope: String, key: String, requestHash: String, now: Date, db: Database) throws
        -> IdempotencyClaim
    {
        try db.cachedStatement(
            sql: """
                INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES (?, ?, ?, 'inFlight', ?)
                ON CONFLICT (scope, key) DO NOTHING
                """
        ).execute(arguments: [scope, key, requestHash, now.timeIntervalSince1970])
        if db.changesCount == 1 { return .claimed }
        let sql = "SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [scope, key]) else { return .claimed }
        if row["state"] as String == "inFlight",
            (row["created_at"] as Double) < now.timeIntervalSince1970 - IdempotencyLease.seconds
        {
            try db.cachedStatement(
                sql: "UPDATE idempotency_keys SET request_hash = ?, created_at = ? WHERE scope = ? AND key = ?"
            )
            .execute(arguments: [requestHash, now.timeIntervalSince1970, scope, key])
            return .claimed
        }
        guard row["request_hash"] as String == requestHash else { return .payloadMismatch }
        guard row["state"] as String == "done" else { return .inFlight }
        return .replay(StoredReply(status: row["status"], contentType: row["content_type"], body: row["body"]))
    }

    private static func complete(scope: String, key: String, reply: StoredReply, db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ? WHERE scope = ? AND key = ?
                """
        ).execute(arguments: [reply.status, reply.contentType, reply.body, scope, key])
    }

    /// Claim, write, render, store, inside the caller's transaction. A key used before writes nothing.
    private static func answer<Found: Sendable>(
        _ slot: AnswerSlot<Found>, now: Date, db: Database,
        _ write: (Database) throws -> Found
    ) throws -> SlotOutcome {
        let claim = try claim(scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now, db: db)
        guard claim == .claimed else { return .earlier(claim) }
        let reply = try slot.render(try write(db))
        try complete(scope: slot.scope, key: slot.key, reply: reply, db: db)
        return .answered(reply)
    }

    // The ledger rows (payload and hash) are built before entering SQLite's single writer, so the
    // writer only runs SQL: docs/decisions/0004-the-ledger-is-the-source-of-truth.md.
    public func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome {
        let row = LedgerEvent.checkIn(command, now: now)
        return try await group.write { db in
            try Self.answer(slot, now: now, db: db) { db in try Self.checkIn(command, row: row, now: now, db: db) }
        }
    }

    public func apply(
        _ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>
    ) async throws
        -> SlotOutcome
    {
        let row = LedgerEvent.sessionEvent(command, now: now)
        return try await group.write { db in
            try Self.answer(slot, now: now, db: db) { db in try Self.apply(command, row: row, now: now, db: db) }
        }
    }

    public func storeAnswer(_ reply: StoredReply, now: Date, answering slot: AnswerSlot<Void>) async throws
        -> SlotOutcome
    {
        try await group.write { db in try Self.answer(slot, now: now, db: db) { _ in () } }
    }

    public func ingestBatch(
        _ items: [BatchWrite], now: Date, answering slot: AnswerSlot<[SlotOutcome]>
    ) async throws -> SlotOutcome {
        let rows = items.map { $0.ledgerRow(now: now) }
        return try await group.write { db in
            try Self.answer(slot, now: now, db: db) { db in
                try zip(items, rows).map { try Self.write($0, row: $1, now: now, db: db) }
            }
        }
    }

    private static func write(_ item: BatchWrite, row: LedgerEvent?, now: Date, db: Database) throws -> SlotOutcome {
        switch item {
        case .checkIn(let command, let slot):
            try answer(slot, now: now, db: db) { db in
                try checkIn(command, row: row ?? LedgerEvent.checkIn(command, now: now), now: now, db: db)
            }
        case .apply(let command, let slot):
            try answer(slot, now: now, db: db) { db in
                try apply(command, row: row ?? LedgerEvent.sessionEvent(command, now: now), now: now, db: db)
            }
        case .refusal(let slot): try answer(slot, now: now, db: db) { _ in () }
        case .unkeyed(let reply): .answered(reply)
        }
    }

    public func purgeIdempotency(olderThan cutoff: Date) async throws -> Int {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM idempotency_keys WHERE created_at < ?").execute(arguments: [
                cutoff.timeIntervalSince1970
            ])
            return db.changesCount
        }
    }

    // MARK: - Directory







    // MARK: - Sessions

    /// A check-in: what `SessionLedger` decides from the known session, the site's state and the
    /// events that arrived before it, written.
    private static func checkIn(
        _ command: CheckInCommand, row: LedgerEvent, now: Date, db: Database
    ) throws -> CheckInOutcome {
        let key = command.sessionKey.rawValue
        let known = try session(key: key, db: db)
        let active = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT (SELECT deactivated_at IS NULL FROM sites WHERE id = ?) AS site,
                           (SELECT deactivated_at IS NULL FROM employees WHERE id = ?) AS employee
                    """), arguments: [command.siteId.rawValue, command.userId.rawValue])
        let pending = known == nil ? try pendingEvents(key: key, db: db) : []
        switch SessionLedger.checkIn(
            command, known: known, siteIsActive: active?["site"] == true,
            employeeIsActive: active?["employee"] == true, pending: pending, now: now)
        {
        case .answer(let outcome):
            return outcome
        case .record(let session, let applied):
            try append(row, db: db)
            try write(session, createdAt: now, db: db)
            for id in applied {
                try db.cachedStatement(sql: "DELETE FROM pending_session_events WHERE id = ?").execute(arguments: [id])
            }
            return .recorded(session, created: true)
        }
    }

    /// A check-out or heartbeat: what `SessionLedger` decides from the session, written.
    private static func apply(
        _ command: SessionEventCommand, row: LedgerEvent, now: Date, db: Database
    ) throws -> SessionEventOutcome {
        switch SessionLedger.apply(command, to: try session(key: command.sessionKey.rawValue, db: db)) {
        case .storePending:
            // The pending row takes its ledger row's id, so a rebuild gives the same rows.
            let id = try append(row, db: db)
            try insertPending(
                id: id, key: command.sessionKey, kind: command.kind, at: command.at, reason: command.reason,
                userId: command.userId, receivedAt: now, source: command.source, db: db)
            return .pending
        case .answer(let outcome):
            return outcome
        case .update(let session):
            try append(row, db: db)
            try write(session, createdAt: now, db: db)
            return .applied(session)
        }
    }

    static func insertPending(
        id: Int64, key: SessionKey, kind: SessionEventCommand.Kind, at: Date, reason: String?, userId: UserID?,
        receivedAt: Date, source: EventSource?, db: Database
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO pending_session_events (id, session_key, kind, at, reason, user_id, received_at, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            id, key.rawValue, kind.rawValue, at.timeIntervalSince1970, reason, userId?.rawValue,
            receivedAt.timeIntervalSince1970, source?.rawValue,
        ])
    }

    /// The session's row as it is now, inserted or replaced (its `createdAt` kept when it exists).
    static func write(_ session: SessionRecord, createdAt: Date, db: Database) throws {
        let evidence = session.evidence
        try db.cachedStatement(
            sql: """
                INSERT INTO sessions (session_key, user_id, site_id, device_id, check_in_at, check_out_at, check_out_reason,
                                      last_seen_at, source, created_at, check_in_reason, check_out_source, app_version,
                                      evidence_rule, evidence_samples, evidence_median_rssi, evidence_stdev_db,
                                      evidence_walking, clock_skew_seconds, corrected, voided_at, void_reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (session_key) DO UPDATE SET
                    user_id = excluded.user_id, site_id = excluded.site_id, device_id = excluded.device_id,
                    check_in_at = excluded.check_in_at, check_out_at = excluded.check_out_at,
                    check_out_reason = excluded.check_out_reason, last_seen_at = excluded.last_seen_at, source = excluded.source,
                    check_in_reason = excluded.check_in_reason, check_out_source = excluded.check_out_source,
                    app_version = excluded.app_version, evidence_rule = excluded.evidence_rule,
                    evidence_samples = excluded.evidence_samples, evidence_median_rssi = excluded.evidence_median_rssi,
                    evidence_stdev_db = excluded.evidence_stdev_db, evidence_walking = excluded.evidence_walking,
                    clock_skew_seconds = excluded.clock_skew_seconds, corrected = excluded.corrected,
                    voided_at = excluded.voided_at, void_reason = excluded.void_reason
                """
        ).execute(arguments: [
            session.sessionKey.rawValue, session.userId.rawValue, session.siteId.rawValue,
            session.deviceId?.rawValue, session.checkInAt.timeIntervalSince1970,
            session.checkOutAt?.timeIntervalSince1970, session.checkOutReason,
            session.lastSeenAt.timeIntervalSince1970, session.source.rawValue, createdAt.timeIntervalSince1970,
            evidence.checkInReason, evidence.checkOutSource?.rawValue, evidence.appVersion, evidence.rule,
            evidence.sampleCount, evidence.medianRSSI, evidence.stdevDB, evidence.walking,
            evidence.clockSkewSeconds, session.corrected, session.voidedAt?.timeIntervalSince1970,
            session.voidReason,
        ])
    }

    /// The events stored before this session's check-in, in arrival order.
    private static func pendingEvents(key: String, db: Database) throws -> [SessionLedger.PendingEvent] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM pending_session_events WHERE session_key = ? ORDER BY id"),
            arguments: [key]
        ).map { row in
            let user: String? = row["user_id"]
            let source: String? = row["source"]
            let id: Int64 = row["id"]
            return SessionLedger.PendingEvent(
                id: id,
                kind: try StoredValue.decode(
                    row["kind"] as String, as: SessionEventCommand.Kind.self, table: "pending_session_events",
                    row: "\(id)", column: "kind"),
                at: Date(timeIntervalSince1970: row["at"]), reason: row["reason"],
                userId: user.map { UserID($0) },
                source: try StoredValue.decode(
                    source, as: EventSource.self, table: "pending_session_events", row: "\(id)", column: "source"))
        }
    }

    public func session(key: SessionKey) async throws -> SessionRecord? {
        try await writer.read { db in try Self.session(key: key.rawValue, db: db) }
    }

    public func pendingEventCount(sessionKey: SessionKey?) async throws -> Int {
        try await writer.read { db in
            guard let sessionKey else {
                return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM pending_session_events")) ?? 0
            }
            return try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM pending_session_events WHERE session_key = ?"),
                arguments: [sessionKey.rawValue]) ?? 0
        }
    }

    public func openSessions(siteId: SiteID?) async throws -> [SessionRecord] {
        try await writer.read { db in
            let open = "SELECT \(Self.sessionColumns) FROM sessions WHERE check_out_at IS NULL AND voided_at IS NULL"
            if let siteId {
                return try Row.fetchAll(
                    db.cachedStatement(sql: open + " AND site_id = ? ORDER BY check_in_at"),
                    arguments: [siteId.rawValue]
                ).map(Self.session)
            }
            return try Row.fetchAll(db.cachedStatement(sql: open + " ORDER BY check_in_at")).map(Self.session)
        }
    }

    static func sessionRecord(_ row: Row) throws -> SessionRecord { try session(row) }

    // MARK: - Rows

    static func session(key: String, db: Database) throws -> SessionRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(sessionColumns) FROM sessions WHERE session_key = ?"), arguments: [key]
        ).map(session)
    }

    /// The session columns every session query selects, in this order: `session(_:)` reads them by
    /// position (by name, GRDB lowercases each name: a fifth of a month's timesheet on SQLite).
    static let sessionColumns = """
        session_key, user_id, site_id, device_id, check_in_at, check_out_at, check_out_reason, last_seen_at, source, \
        check_in_reason, check_out_source, app_version, evidence_rule, evidence_samples, evidence_median_rssi, evidence_stdev_db, \
        evidence_walking, clock_skew_seconds, corrected, voided_at, void_reason
        """

    private static func session(_ row: Row) throws -> SessionRecord {
        let checkOut: Double? = row[5]
        let device: String? = row[3]
        let checkOutSource: String? = row[10]
        let voidedAt: Double? = row[19]
        let key: String = row[0]
        let evidence = SessionEvidence(
            checkInReason: row[9],
            checkOutSource: try StoredValue.decode(
                checkOutSource, as: EventSource.self, table: "sessions", row: key, column: "check_out_source"),
            appVersion: row[11], rule: row[12], sampleCount: row[13], medianRSSI: row[14], stdevDB: row[15],
            walking: row[16], clockSkewSeconds: row[17])
        return SessionRecord(
            sessionKey: SessionKey(row[0]), userId: UserID(row[1]), siteId: SiteID(row[2]),
            deviceId: device.map { DeviceID($0) }, checkInAt: Date(timeIntervalSince1970: row[4]),
            checkOutAt: checkOut.map(Date.init(timeIntervalSince1970:)), checkOutReason: row[6],
            lastSeenAt: Date(timeIntervalSince1970: row[7]),
            source: try StoredValue.decode(
                row[8] as String, as: EventSource.self, table: "sessions", row: key,
                column: "source"),
            evidence: evidence, corrected: row[18], voidedAt: voidedAt.map(Date.init(timeIntervalSince1970:)),
            voidReason: row[20])
    }

    static func employeeRecord(_ row: Row) -> EmployeeRecord {
        let deactivated: Double? = row["deactivated_at"]
        return EmployeeRecord(
            id: UserID(row["id"]), name: row["name"], externalId: row["external_id"], email: row["email"],
            deactivatedAt: deactivated.map(Date.init(timeIntervalSince1970:)))
    }

    private static func site(_ row: Row) -> SiteRecord {
        let latitude: Double? = row["geofence_latitude"]
        let longitude: Double? = row["geofence_longitude"]
        let radius: Double? = row["geofence_radius_meters"]
        let geofence = latitude.flatMap { lat in
            longitude.flatMap { lon in radius.map { Geofence(latitude: lat, longitude: lon, radiusMeters: $0) } }
        }
        return SiteRecord(
            id: SiteID(row["id"]), name: row["name"], timeZone: row["time_zone"],
            beacon: SiteBeacon(
                uuid: UUID(uuidString: row["beacon_uuid"]) ?? SiteBeacon.defaultUUID, major: UInt16(row["major"] as Int)
            ),
            geofence: geofence, deactivatedAt: (row["deactivated_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }
}
