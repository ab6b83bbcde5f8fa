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
    typealias SessionRow = (String, String, String, String?, Double, Double?, String?, Double, String,
                            String?, String?, String?, String?, Int?, Double?, Double?, Bool?,
                            Double?, Bool, Double?, String?)

    static func site(_ row: SiteRow) -> SiteRecord {
        let (id, name, timeZone, uuid, major, latitude, longitude, radius, deactivated) = row
        let geofence = latitude.flatMap { lat in longitude.flatMap { lon in radius.map { Geofence(latitude: lat, longitude: lon, radiusMeters: $0) } } }
        return SiteRecord(id: SiteID(id), name: name, timeZone: timeZone,
            beacon: SiteBeacon(uuid: UUID(uuidString: uuid) ?? SiteBeacon.defaultUUID, major: UInt16(major)),
            geofence: geofence,
                          deactivatedAt: deactivated.map(Date.init(timeIntervalSince1970:)))
    }

    static func session(_ row: SessionRow) -> SessionRecord {
        let (key, user, site, device, checkIn, checkOut, reason, lastSeen, source,
             checkInReason, checkOutSource, appVersion, rule, samples, median, stdev, walking,
             skew, corrected, voidedAt, voidReason) = row
        let evidence = SessionEvidence(
            checkInReason: checkInReason, checkOutSource: checkOutSource.flatMap(EventSource.init(rawValue:)),
            appVersion: appVersion, rule: rule, sampleCount: samples, medianRSSI: median, stdevDB: stdev,
            walking: walking, clockSkewSeconds: skew)
        return SessionRecord(sessionKey: SessionKey(key), userId: UserID(user), siteId: SiteID(site), deviceId: device.map { DeviceID($0) },
                             checkInAt: Date(timeIntervalSince1970: checkIn), checkOutAt: checkOut.map(Date.init(timeIntervalSince1970:)),
                             checkOutReason: reason, lastSeenAt: Date(timeIntervalSince1970: lastSeen),
                             source: EventSource(rawValue: source) ?? .automatic, evidence: evidence,
                             corrected: corrected, voidedAt: voidedAt.map(Date.init(timeIntervalSince1970:)),
                             voidReason: voidReason)
    }

    func sites(_ query: PostgresQuery) async throws -> [SiteRecord] {
        var sites: [SiteRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(SiteRow.self) { sites.append(Self.site(row)) }
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
        for try await row in rows.decode(SessionRow.self) { sessions.append(Self.session(row)) }
        return sessions
    }

    // MARK: - Directory

    public func createSite(_ site: SiteRecord, audit: LedgerEvent?) async throws {
        do {
            try await audited(audit) { connection in
                try await connection.query("""
                    INSERT INTO sites (id, name, time_zone, beacon_uuid, major, geofence_latitude, geofence_longitude,
                                       geofence_radius_meters)
                    VALUES (\(site.id.rawValue), \(site.name), \(site.timeZone), \(site.beacon.uuid.uuidString),
                            \(Int(site.beacon.major)), \(site.geofence?.latitude), \(site.geofence?.longitude),
                            \(site.geofence?.radiusMeters))
                    """, logger: self.logger)
                return true
            }
        } catch where Self.isUniqueViolation(error) {
            throw RepositoryError(kind: .conflict, detail: "a site with id '\(site.id)' or beacon \(site.beacon) already exists")
        }
    }

    public func site(id: SiteID) async throws -> SiteRecord? {
        try await sites(PostgresQuery(unsafeSQL: "SELECT \(Self.siteColumns) FROM sites WHERE id = $1", binds: try binds(id.rawValue))).first
    }

    public func site(beacon: SiteBeacon) async throws -> SiteRecord? {
        try await sites(PostgresQuery(unsafeSQL: "SELECT \(Self.siteColumns) FROM sites WHERE beacon_uuid = $1 AND major = $2",
                                      binds: try binds(beacon.uuid.uuidString, Int(beacon.major)))).first
    }

    public func sites() async throws -> [SiteRecord] {
        try await sites(PostgresQuery(unsafeSQL: "SELECT \(Self.siteColumns) FROM sites ORDER BY name, id"))
    }

    public func createEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws {
        do {
            try await audited(audit) { connection in
                try await connection.query("""
                    INSERT INTO employees (id, name, external_id, email)
                    VALUES (\(employee.id.rawValue), \(employee.name), \(employee.externalId), \(employee.email))
                    """, logger: self.logger)
                return true
            }
        } catch where Self.isUniqueViolation(error) {
            throw RepositoryError(kind: .conflict, detail: "an employee with id '\(employee.id)' or external id '\(employee.externalId ?? "")' already exists")
        }
    }

    public func employee(id: UserID) async throws -> EmployeeRecord? {
        try await employees(PostgresQuery(unsafeSQL: "SELECT \(Self.employeeColumns) FROM employees WHERE id = $1",
                                          binds: try binds(id.rawValue))).first
    }

    static let employeeColumns = "id, name, external_id, email, deactivated_at"

    func employees(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [EmployeeRecord] {
        let rows = if let connection {
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

    /// Claim, write, render, store, inside the caller's transaction. A key used before writes nothing.
    private func answer<Found: Sendable>(_ slot: AnswerSlot<Found>, now: Date, on connection: PostgresConnection,
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
    /// lock ids (so two batches can never wait for each other), then identical requests queue
    /// instead of colliding.
    func transaction<Result: Sendable>(locking sessionKeys: [SessionKey],
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.withTransaction(logger: logger) { connection in
            if sessionKeys.count == 1 {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\(sessionKeys[0].rawValue)))", logger: self.logger)
            } else if !sessionKeys.isEmpty {
                var ids: [Int] = []
                let keys = sessionKeys.map(\.rawValue)
                let query: PostgresQuery =
                    "SELECT DISTINCT hashtext(k)::bigint AS id FROM unnest(\(keys)::text[]) AS k ORDER BY id"
                for try await id in try await connection.query(query, logger: self.logger).decode(Int.self) {
                    ids.append(id)
                }
                for id in ids { try await connection.query("SELECT pg_advisory_xact_lock(\(id))", logger: self.logger) }
            }
            return try await body(connection)
        }
    }

    public func checkIn(
        _ command: CheckInCommand, now: Date, answering slot: AnswerSlot<CheckInOutcome>
    ) async throws -> SlotOutcome {
        try await transaction(locking: [command.sessionKey]) { connection in
            try await self.answer(slot, now: now, on: connection) { try await self.checkIn(command, now: now, on: $0) }
        }
    }

    public func apply(
        _ command: SessionEventCommand, now: Date, answering slot: AnswerSlot<SessionEventOutcome>
    ) async throws
        -> SlotOutcome
    {
        try await transaction(locking: [command.sessionKey]) { connection in
            try await self.answer(slot, now: now, on: connection) { try await self.apply(command, now: now, on: $0) }
        }
    }

    public func storeAnswer(_ reply: StoredReply, now: Date, answering slot: AnswerSlot<Void>) async throws -> SlotOutcome {
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
            try await answer(slot, now: now, on: connection) { try await self.checkIn(command, now: now, on: $0) }
        case .apply(let command, let slot):
            try await answer(slot, now: now, on: connection) { try await self.apply(command, now: now, on: $0) }
        case .refusal(let slot):
            try await answer(slot, now: now, on: connection) { _ in () }
        case .unkeyed(let reply):
            .answered(reply)
        }
    }

    /// A check-in: what `SessionLedger` decides from the known session, the site's state and the
    /// events that arrived before it, written. The caller holds the session's advisory lock.
    private func checkIn(_ command: CheckInCommand, now: Date, on connection: PostgresConnection) async throws
        -> CheckInOutcome
    {
        let key = command.sessionKey.rawValue
        let known = try await session(key: key, on: connection)
        var active: (site: Bool?, employee: Bool?) = (nil, nil)
        for try await flags in try await connection.query("""
            SELECT (SELECT deactivated_at IS NULL FROM sites WHERE id = \(command.siteId.rawValue)),
                   (SELECT deactivated_at IS NULL FROM employees WHERE id = \(command.userId.rawValue))
            """, logger: logger).decode((Bool?, Bool?).self) { active = flags }
        var pending: [SessionLedger.PendingEvent] = []
        if known == nil {
            let rows = try await connection.query("""
                SELECT id::bigint, kind, at, reason, user_id,
                    source FROM pending_session_events WHERE session_key = \(key) ORDER BY id
                """, logger: logger)
            for try await (id, kind, at, reason, user, source) in rows.decode(
                (Int64, String, Double, String?, String?, String?).self)
            {
                pending.append(
                    SessionLedger.PendingEvent(
                        id: id, kind: SessionEventCommand.Kind(rawValue: kind) ?? .heartbeat,
                        at: Date(timeIntervalSince1970: at), reason: reason,
                        userId: user.map { UserID($0) },
                        source: source.flatMap(EventSource.init(rawValue:))))
            }
        }
        switch SessionLedger.checkIn(command, known: known, siteIsActive: active.site == true,
                                     employeeIsActive: active.employee == true, pending: pending, now: now) {
        case .answer(let outcome):
            return outcome
        case .record(let session, let applied):
            try await write(session, createdAt: now, recording: LedgerEvent.checkIn(command, now: now), on: connection)
            if !applied.isEmpty {
                try await connection.query(
                    "DELETE FROM pending_session_events WHERE id = ANY(\(applied))", logger: logger)
            }
            return .recorded(session, created: true)
        }
    }

    /// A check-out or heartbeat: what `SessionLedger` decides from the session, written. The
    /// caller holds the session's advisory lock.
    private func apply(_ command: SessionEventCommand, now: Date, on connection: PostgresConnection) async throws
        -> SessionEventOutcome
    {
        let key = command.sessionKey.rawValue
        switch SessionLedger.apply(command, to: try await session(key: key, on: connection)) {
        case .storePending:
            // The pending row takes its ledger row's id, so a rebuild gives the same rows.
            let id = try await append(LedgerEvent.sessionEvent(command, now: now), on: connection)
            try await insertPending(
                id: id, key: command.sessionKey, kind: command.kind, at: command.at, reason: command.reason,
                userId: command.userId, receivedAt: now, source: command.source, on: connection)
            return .pending
        case .answer(let outcome):
            return outcome
        case .update(let session):
            try await write(
                session, createdAt: now, recording: LedgerEvent.sessionEvent(command, now: now), on: connection)
            return .applied(session)
        }
    }

    func insertPending(
        id: Int64, key: SessionKey, kind: SessionEventCommand.Kind, at: Date, reason: String?, userId: UserID?,
        receivedAt: Date, source: EventSource?, on connection: PostgresConnection
    ) async throws {
        try await connection.query("""
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

    func session(key: String, on connection: PostgresConnection) async throws -> SessionRecord? {
        try await sessions(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.sessionColumns) FROM sessions WHERE session_key = $1",
                binds: try binds(key)), on: connection
        ).first
    }

    public func session(key: SessionKey) async throws -> SessionRecord? {
        try await sessions(PostgresQuery(unsafeSQL: "SELECT \(Self.sessionColumns) FROM sessions WHERE session_key = $1", binds: try binds(key.rawValue))).first
    }

    public func pendingEventCount(sessionKey: SessionKey?) async throws -> Int {
        let query: PostgresQuery = if let sessionKey {
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
