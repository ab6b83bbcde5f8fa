import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository {
    static let siteColumns = """
        id, name, time_zone, beacon_uuid, major, geofence_latitude, geofence_longitude, geofence_radius_meters,
        deactivated_at
        """
    static let sessionColumns = """
        session_key, user_id, site_id, device_id, check_in_at, check_out_at, check_out_reason, last_seen_at, source,
        check_in_reason, check_out_source, app_version, evidence_rule, evidence_samples, evidence_median_rssi,
        evidence_stdev_db, evidence_walking, clock_skew_seconds, corrected, voided_at, void_reason
        """

    typealias SiteRow = (String, String, String, String, Int, Double?, Double?, Double?, Double?)

    static func site(_ row: SiteRow) -> SiteRecord {
        let (id, name, timeZone, uuid, major, latitude, longitude, radius, deactivated) = row
        let geofence = latitude.flatMap { lat in
            longitude.flatMap { lon in radius.map { Geofence(latitude: lat, longitude: lon, radiusMeters: $0) } }
        }
        return SiteRecord(
            id: SiteID(id), name: name, timeZone: timeZone,
            beacon: SiteBeacon(uuid: UUID(uuidString: uuid) ?? SiteBeacon.defaultUUID, major: UInt16(major)),
            geofence: geofence,
            deactivatedAt: deactivated.map(Date.init(timeIntervalSince1970:)))
    }

    /// The session in `sessionColumns` starting at column `first` of `row`, or nil when its key
    /// is NULL (a LEFT JOIN that found none): the one mapping of a session row.
    static func session(_ row: PostgresRandomAccessRow, at first: Int) throws -> SessionRecord? {
        func column<T: PostgresDecodable>(_ offset: Int, _ type: T.Type = T.self) throws -> T {
            try row[first + offset].decode(T.self)
        }
        guard let key = try column(0, String?.self) else { return nil }
        let time = { (seconds: Double?) in seconds.map(Date.init(timeIntervalSince1970:)) }
        let evidence = SessionEvidence(
            checkInReason: try column(9),
            checkOutSource: try StoredValue.decode(
                try column(10, String?.self), as: EventSource.self, table: "sessions", row: key,
                column: "check_out_source"),
            appVersion: try column(11), rule: try column(12), sampleCount: try column(13), medianRSSI: try column(14),
            stdevDB: try column(15), walking: try column(16), clockSkewSeconds: try column(17))
        return SessionRecord(
            sessionKey: SessionKey(key), userId: UserID(try column(1)), siteId: SiteID(try column(2)),
            deviceId: try column(3, String?.self).map { DeviceID($0) },
            checkInAt: Date(timeIntervalSince1970: try column(4)), checkOutAt: time(try column(5)),
            checkOutReason: try column(6), lastSeenAt: Date(timeIntervalSince1970: try column(7)),
            source: try StoredValue.decode(
                try column(8, String.self), as: EventSource.self, table: "sessions", row: key, column: "source"),
            evidence: evidence,
            corrected: try column(18), voidedAt: time(try column(19)), voidReason: try column(20))
    }

    func sites(_ query: PostgresQuery) async throws -> [SiteRecord] {
        var sites: [SiteRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(SiteRow.self) {
            sites.append(Self.site(row))
        }
        return sites
    }

    func sessions(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [SessionRecord] {
        let rows: PostgresRowSequence
        if let connection {
            rows = try await connection.query(query, logger: logger)
        } else {
            rows = try await client.query(query, logger: logger)
        }
        var sessions: [SessionRecord] = []
        for try await row in rows {
            if let session = try Self.session(row.makeRandomAccess(), at: 0) { sessions.append(session) }
        }
        return sessions
    }

    // MARK: - Directory







    static let employeeColumns = "id, name, external_id, email, deactivated_at"

    func employees(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [EmployeeRecord] {
        let rows =
            if let connection {
                try await connection.query(query, logger: logger)
            } else {
                try await client.query(query, logger: logger)
            }
        var employees: [EmployeeRecord] = []
        for try await (id, name, externalId, email, deactivated) in rows.decode(
            (String, String, String?, String?, Double?).self)
        {
            employees.append(
                EmployeeRecord(
                    id: UserID(id), name: name, externalId: externalId, email: email,
                    deactivatedAt: deactivated.map(Date.init(timeIntervalSince1970:))))
        }
        return employees
    }

    // MARK: - Sessions

    /// Claim, write, render, store, inside the caller's transaction, for a write that is not a
    /// session's (a refusal, a batch's own key). A key used before writes nothing.
    private func answer<Found: Sendable>(
        _ slot: AnswerSlot<Found>, now: Date, on connection: PostgresConnection,
        _ write: (PostgresConnection) async throws -> Found
    ) async throws -> SlotOutcome {
        let claim = try await claim(
            scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now, on: connection)
        guard claim == .claimed else { return .earlier(claim) }
        let reply = try slot.render(try await write(connection))
        try await complete(scope: slot.scope, key: slot.key, reply: reply, on: connection)
        return .answered(reply)
    }

    /// One transaction that first takes the advisory locks of `sessionKeys`, in the order of their
    /// lock ids (so two batches can never wait for each other), in one statement; then identical
    /// requests queue instead of colliding.
    func transaction<Result: Sendable>(
        locking sessionKeys: [SessionKey],
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.withTransaction(logger: logger) { connection in
            if sessionKeys.count == 1 {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\(sessionKeys[0].rawValue)))", logger: self.logger)
            } else if !sessionKeys.isEmpty {
                // A volatile function in the select list runs after ORDER BY: the locks are taken in order.
                let keys = sessionKeys.map(\.rawValue)
                try await connection.query(
                    """
                    SELECT pg_advisory_xact_lock(id)
                    FROM (SELECT DISTINCT hashtext(k)::bigint AS id FROM unnest(\(keys)::text[]) AS k) AS ids
                    ORDER BY id
                    """, logger: self.logger)
            }
            return try await body(connection)
        }
    }

    public func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome {
        try await transaction(locking: [command.sessionKey]) { connection in
            try await self.checkIn(command, now: now, answering: slot, on: connection)
        }
    }

    public func apply(
        _ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>
    ) async throws
        -> SlotOutcome
    {
        try await transaction(locking: [command.sessionKey]) { connection in
            try await self.apply(command, now: now, answering: slot, on: connection)
        }
    }

    public func storeAnswer(_ reply: StoredReply, now: Date, answering slot: AnswerSlot<Void>) async throws
        -> SlotOutcome
    {
        try await transaction(locking: []) { connection in
            try await self.answer(slot, now: now, on: connection) { _ in () }
        }
    }

    public func ingestBatch(
        _ items: [BatchWrite], now: Date, answering slot: AnswerSlot<[SlotOutcome]>
    ) async throws -> SlotOutcome {
        try await transaction(locking: items.compactMap(\.sessionKey)) { connection in
            try await self.answer(slot, now: now, on: connection) { connection in
                var outcomes: [SlotOutcome] = []
                outcomes.reserveCapacity(items.count)
                for item in items { outcomes.append(try await self.write(item, now: now, on: connection)) }
                return outcomes
            }
        }
    }

    private func write(_ item: BatchWrite, now: Date, on connection: PostgresConnection) async throws -> SlotOutcome {
        switch item {
        case .checkIn(let command, let slot):
            try await checkIn(command, now: now, answering: slot, on: connection)
        case .apply(let command, let slot):
            try await apply(command, now: now, answering: slot, on: connection)
        case .refusal(let slot):
            try await answer(slot, now: now, on: connection) { _ in () }
        case .unkeyed(let reply):
            .answered(reply)
        }
    }

    /// A check-in: the key's claim and what `SessionLedger` decides from (the known session, the
    /// site's and employee's state, the events that arrived before it) read in one statement; the
    /// decision and its answer written in one more. The caller holds the session's advisory lock.
    private func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>,
        on connection: PostgresConnection
    ) async throws -> SlotOutcome {
        let found = try await claimAndRead(
            slot, now: now, sessionKey: command.sessionKey, site: command.siteId, user: command.userId, on: connection)
        guard found.claim == .claimed else { return .earlier(found.claim) }
        switch SessionLedger.checkIn(
            command, known: found.session, siteIsActive: found.siteIsActive == true,
            employeeIsActive: found.employeeIsActive == true, pending: found.pending, now: now)
        {
        case .answer(let outcome):
            let reply = try slot.render(outcome)
            try await complete(scope: slot.scope, key: slot.key, reply: reply, on: connection)
            return .answered(reply)
        case .record(let session, let applied):
            let reply = try slot.render(.recorded(session, created: true))
            try await write(
                session, createdAt: now, recording: LedgerEvent.checkIn(command, now: now), absorbing: applied,
                answering: (slot.scope, slot.key, reply), on: connection)
            return .answered(reply)
        }
    }

    /// A check-out or heartbeat: the key's claim and the session read in one statement, what
    /// `SessionLedger` decides written with its answer in one more. The caller holds the lock.
    private func apply(
        _ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>,
        on connection: PostgresConnection
    ) async throws -> SlotOutcome {
        let found = try await claimAndRead(
            slot, now: now, sessionKey: command.sessionKey, site: nil, user: nil, on: connection)
        guard found.claim == .claimed else { return .earlier(found.claim) }
        switch SessionLedger.apply(command, to: found.session) {
        case .storePending:
            // The pending row takes its ledger row's id, so a rebuild gives the same rows.
            let id = try await append(LedgerEvent.sessionEvent(command, now: now), on: connection)
            try await insertPending(
                id: id, key: command.sessionKey, kind: command.kind, at: command.at, reason: command.reason,
                userId: command.userId, receivedAt: now, source: command.source, on: connection)
            let reply = try slot.render(.pending)
            try await complete(scope: slot.scope, key: slot.key, reply: reply, on: connection)
            return .answered(reply)
        case .answer(let outcome):
            let reply = try slot.render(outcome)
            try await complete(scope: slot.scope, key: slot.key, reply: reply, on: connection)
            return .answered(reply)
        case .update(let session):
            let reply = try slot.render(.applied(session))
            try await write(
                session, createdAt: now, recording: LedgerEvent.sessionEvent(command, now: now), absorbing: [],
                answering: (slot.scope, slot.key, reply), on: connection)
            return .answered(reply)
        }
    }

    /// What a session event's transaction reads before `SessionLedger` decides.
    struct SessionContext {
        var claim: IdempotencyClaim
        var session: SessionRecord?
        var siteIsActive: Bool?
        var employeeIsActive: Bool?
        var pending: [SessionLedger.PendingEvent]
    }

    /// Claims the slot's key and reads the key's earlier answer, the session, the site's and the
    /// employee's state (when given) and the session's pending events, in one statement. A key
    /// whose row another transaction committed while this one waited for it is not in the
    /// statement's snapshot: it is read again (`claim`), a rare path.
    private func claimAndRead<Found>(
        _ slot: AnswerSlot<Found>, now: Date, sessionKey: SessionKey, site: SiteID?, user: UserID?,
        on connection: PostgresConnection
    ) async throws -> SessionContext {
        var binds = PostgresBindings(capacity: 8)
        binds.append(slot.scope)
        binds.append(slot.key)
        binds.append(slot.requestHash)
        binds.append(now.timeIntervalSince1970)
        binds.append(now.timeIntervalSince1970 - IdempotencyLease.seconds)
        binds.append(sessionKey.rawValue)
        binds.append(site?.rawValue)
        binds.append(user?.rawValue)
        for try await columns in try await connection.execute(ClaimAndRead(bindings: binds), logger: logger) {
            var context = SessionContext(
                claim: .claimed, session: try Self.session(columns, at: 9),
                siteIsActive: try columns[6].decode(Bool?.self), employeeIsActive: try columns[7].decode(Bool?.self),
                pending: try Self.pendingEvents(json: try columns[8].decode(String?.self)))
            if try !columns[0].decode(Bool.self) {
                if let hash = try columns[1].decode(String?.self) {
                    let status = try columns[3].decode(Int?.self)
                    let contentType = try columns[4].decode(String?.self)
                    if hash != slot.requestHash {
                        context.claim = .payloadMismatch
                    } else if try columns[2].decode(String.self) == "done", let status, let contentType {
                        let body = try columns[5].decode(ByteBuffer?.self)
                        context.claim = .replay(
                            StoredReply(
                                status: status, contentType: contentType,
                                body: body.map { Data(buffer: $0) } ?? Data()))
                    } else {
                        context.claim = .inFlight
                    }
                } else {
                    context.claim = try await claim(
                        scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now, on: connection)
                }
            }
            return context
        }
        throw RepositoryError(kind: .conflict, detail: "the claim of key '\(slot.key)' returned no row")
    }

    static let claimAndReadSQL = """
        WITH claim AS (
            INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at)
            VALUES ($1, $2, $3, 'inFlight', $4)
            ON CONFLICT (scope, key) DO UPDATE
                SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
            WHERE idempotency_keys.state = 'inFlight' AND idempotency_keys.created_at < $5
            RETURNING 1)
        SELECT EXISTS (SELECT 1 FROM claim), k.request_hash, k.state, k.status, k.content_type, k.body,
            (SELECT deactivated_at IS NULL FROM sites WHERE id = $7::text),
            (SELECT deactivated_at IS NULL FROM employees WHERE id = $8::text),
            (SELECT json_agg(json_build_array(p.id, p.kind, p.at, p.reason, p.user_id, p.source) ORDER BY p.id)::text
                FROM pending_session_events AS p WHERE p.session_key = $6),
            \(sessionColumns.split(separator: ",").map { "s." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .joined(separator: ", "))
        FROM (SELECT 1) AS one
        LEFT JOIN idempotency_keys AS k ON k.scope = $1 AND k.key = $2
        LEFT JOIN sessions AS s ON s.session_key = $6
        """

    /// The pending events as `claimAndReadSQL` aggregates them: [[id, kind, at, reason, user, source], …].
    static func pendingEvents(json: String?) throws -> [SessionLedger.PendingEvent] {
        guard let json else { return [] }
        guard let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]] else {
            throw RepositoryError(kind: .conflict, detail: "pending events were not rows: \(json.prefix(200))")
        }
        return try rows.map { row in
            guard row.count == 6, let id = (row[0] as? NSNumber)?.int64Value, let kind = row[1] as? String,
                let at = (row[2] as? NSNumber)?.doubleValue
            else {
                throw StoredValueError(
                    table: "pending_session_events", row: "\(row.first ?? "?")", column: "(aggregated)",
                    value: "\(row)", expected: "[id, kind, at, reason, user_id, source]")
            }
            return SessionLedger.PendingEvent(
                id: id,
                kind: try StoredValue.decode(
                    kind, as: SessionEventCommand.Kind.self, table: "pending_session_events", row: "\(id)",
                    column: "kind"),
                at: Date(timeIntervalSince1970: at), reason: row[3] as? String,
                userId: (row[4] as? String).map { UserID($0) },
                source: try StoredValue.decode(
                    row[5] as? String, as: EventSource.self, table: "pending_session_events", row: "\(id)",
                    column: "source"))
        }
    }

    func insertPending(
        id: Int64, key: SessionKey, kind: SessionEventCommand.Kind, at: Date, reason: String?, userId: UserID?,
        receivedAt: Date, source: EventSource?, on connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO pending_session_events (id, session_key, kind, at, reason, user_id, received_at, source)
            VALUES (\(id), \(key.rawValue), \(kind.rawValue), \(at.timeIntervalSince1970), \(reason),
                    \(userId?.rawValue), \(receivedAt.timeIntervalSince1970), \(source?.rawValue))
            """, logger: logger)
    }

    /// The session's row as it is now, inserted or replaced (its `created_at` kept when it exists).
    func write(_ session: SessionRecord, createdAt: Date, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings(capacity: Self.sessionUpsertColumns.count)
        Self.bindSessionUpsert(session, createdAt: createdAt, into: &binds)
        try await connection.query(PostgresQuery(unsafeSQL: Self.sessionUpsertSQL, binds: binds), logger: logger)
    }

    /// A change's ledger row and the session it gives, in one statement (one round trip).
    func write(
        _ session: SessionRecord, createdAt: Date, recording row: LedgerEvent, on connection: PostgresConnection
    ) async throws {
        var binds = PostgresBindings(capacity: Self.ledgerInsertColumns.count + Self.sessionUpsertColumns.count)
        Self.bindLedgerInsert(row, into: &binds)
        Self.bindSessionUpsert(session, createdAt: createdAt, into: &binds)
        try await connection.query(PostgresQuery(unsafeSQL: Self.recordAndUpsertSQL, binds: binds), logger: logger)
    }

    /// A device event's ledger row, the pending events its session absorbed, its key's answer and
    /// the session it gives, in one statement (one round trip).
    private func write(
        _ session: SessionRecord, createdAt: Date, recording row: LedgerEvent, absorbing pending: [Int64],
        answering key: (scope: String, key: String, reply: StoredReply), on connection: PostgresConnection
    ) async throws {
        var binds = PostgresBindings(capacity: Self.ledgerInsertColumns.count + 6 + Self.sessionUpsertColumns.count)
        Self.bindLedgerInsert(row, into: &binds)
        binds.append(key.reply.status)
        binds.append(key.reply.contentType)
        binds.append(ByteBuffer(data: key.reply.body))
        binds.append(key.scope)
        binds.append(key.key)
        binds.append(pending)
        Self.bindSessionUpsert(session, createdAt: createdAt, into: &binds)
        _ = try await connection.execute(RecordAnswerAndUpsert(bindings: binds), logger: logger)
    }

    static let sessionUpsertColumns = [
        "session_key", "user_id", "site_id", "device_id", "check_in_at", "check_out_at", "check_out_reason",
        "last_seen_at", "source", "created_at", "check_in_reason", "check_out_source", "app_version", "evidence_rule",
        "evidence_samples", "evidence_median_rssi", "evidence_stdev_db", "evidence_walking", "clock_skew_seconds",
        "corrected", "voided_at", "void_reason",
    ]

    /// The session upsert with its binds numbered from `first`; every column but the key and
    /// `created_at` is replaced on conflict.
    static func sessionUpsertSQL(firstBind first: Int) -> String {
        let placeholders = sessionUpsertColumns.indices.map { "$\(first + $0)" }.joined(separator: ", ")
        let updates = sessionUpsertColumns.filter { $0 != "session_key" && $0 != "created_at" }
            .map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return """
            INSERT INTO sessions (\(sessionUpsertColumns.joined(separator: ", "))) VALUES (\(placeholders))
            ON CONFLICT (session_key) DO UPDATE SET \(updates)
            """
    }

    /// Binds the upsert's values, in `sessionUpsertColumns` order.
    static func bindSessionUpsert(_ session: SessionRecord, createdAt: Date, into binds: inout PostgresBindings) {
        let evidence = session.evidence
        binds.append(session.sessionKey.rawValue)
        binds.append(session.userId.rawValue)
        binds.append(session.siteId.rawValue)
        binds.append(session.deviceId?.rawValue)
        binds.append(session.checkInAt.timeIntervalSince1970)
        binds.append(session.checkOutAt?.timeIntervalSince1970)
        binds.append(session.checkOutReason)
        binds.append(session.lastSeenAt.timeIntervalSince1970)
        binds.append(session.source.rawValue)
        binds.append(createdAt.timeIntervalSince1970)
        binds.append(evidence.checkInReason)
        binds.append(evidence.checkOutSource?.rawValue)
        binds.append(evidence.appVersion)
        binds.append(evidence.rule)
        binds.append(evidence.sampleCount)
        binds.append(evidence.medianRSSI)
        binds.append(evidence.stdevDB)
        binds.append(evidence.walking)
        binds.append(evidence.clockSkewSeconds)
        binds.append(session.corrected)
        binds.append(session.voidedAt?.timeIntervalSince1970)
        binds.append(session.voidReason)
    }

    static let sessionUpsertSQL = sessionUpsertSQL(firstBind: 1)
    static let recordAndUpsertSQL =
        ledgerRowCTE + " " + sessionUpsertSQL(firstBind: ledgerInsertColumns.count + 1)
    /// `recordAndUpsertSQL` with the key's answer stored and the absorbed pending events deleted:
    /// binds $11…$15 the answer (status, content type, body, scope, key), $16 the pending ids.
    static let recordAnswerAndUpsertSQL =
        ledgerRowCTE + """
            , answered AS (
                UPDATE idempotency_keys SET state = 'done', status = $11, content_type = $12, body = $13
                WHERE scope = $14 AND key = $15),
            absorbed AS (DELETE FROM pending_session_events WHERE id = ANY($16::bigint[]))
            """ + " " + sessionUpsertSQL(firstBind: ledgerInsertColumns.count + 7)

    func session(key: String, on connection: PostgresConnection) async throws -> SessionRecord? {
        try await sessions(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.sessionColumns) FROM sessions WHERE session_key = $1",
                binds: try binds(key)), on: connection
        ).first
    }

    public func session(key: SessionKey) async throws -> SessionRecord? {
        try await sessions(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.sessionColumns) FROM sessions WHERE session_key = $1",
                binds: try binds(key.rawValue))
        ).first
    }

    public func pendingEventCount(sessionKey: SessionKey?) async throws -> Int {
        let query: PostgresQuery =
            if let sessionKey {
                "SELECT COUNT(*)::bigint FROM pending_session_events WHERE session_key = \(sessionKey.rawValue)"
            } else {
                "SELECT COUNT(*)::bigint FROM pending_session_events"
            }
        for try await count in try await client.query(query, logger: logger).decode(Int.self) { return count }
        return 0
    }

    public func openSessions(siteId: SiteID?) async throws -> [SessionRecord] {
        if let siteId {
            return try await sessions(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT \(Self.sessionColumns) FROM sessions WHERE check_out_at IS NULL AND voided_at IS NULL "
                        + "AND site_id = $1 ORDER BY check_in_at",
                    binds: try binds(siteId.rawValue)))
        }
        return try await sessions(
            PostgresQuery(
                unsafeSQL:
                    "SELECT \(Self.sessionColumns) FROM sessions WHERE check_out_at IS NULL AND voided_at IS NULL "
                    + "ORDER BY check_in_at"
            ))
    }
}

/// Bindings for a query whose SQL is assembled from fixed column lists.
func binds(_ values: any PostgresThrowingDynamicTypeEncodable...) throws -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values { try bindings.append(value) }
    return bindings
}
