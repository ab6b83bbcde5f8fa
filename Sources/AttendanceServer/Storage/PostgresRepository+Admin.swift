import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository {
    // MARK: - Auth

    public func installAdminToken(hash: String, now: Date) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(731002)", logger: logger)
            var count = 0
            for try await n in try await connection.query("SELECT COUNT(*)::INT FROM admin_tokens", logger: logger)
                .decode(Int.self)
            { count = n }
            guard count == 0 else { return false }
            try await connection.query(
                "INSERT INTO admin_tokens (token_hash, created_at) VALUES (\(hash), \(now.timeIntervalSince1970))",
                logger: logger)
            return true
        }
    }

    public func replaceAdminTokens(hash: String, now: Date) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(731002)", logger: logger)
            try await connection.query("DELETE FROM admin_tokens WHERE token_hash <> \(hash)", logger: logger)
            try await connection.query(
                "INSERT INTO admin_tokens (token_hash, created_at) VALUES (\(hash), \(now.timeIntervalSince1970)) ON CONFLICT (token_hash) DO NOTHING",
                logger: logger)
        }
    }

    public func isAdminToken(hash: String) async throws -> Bool {
        !(try await client.query("SELECT 1 FROM admin_tokens WHERE token_hash = \(hash)", logger: logger).collect())
            .isEmpty
    }

    public func createEnrollmentCode(hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?)
        async throws
    {
        try await audited(audit) { connection in
            try await connection.query(
                """
                INSERT INTO enrollment_codes (code_hash, user_id, expires_at, created_at)
                VALUES (\(hash), \(userId.rawValue), \(expiresAt.timeIntervalSince1970), \(now.timeIntervalSince1970))
                """, logger: self.logger)
            return true
        }
    }

    /// `change` in a transaction, and `audit` written in it when the change happened (`change`
    /// returns whether it did, and that is returned).
    @discardableResult
    func audited(_ audit: LedgerEvent?, _ change: @escaping @Sendable (PostgresConnection) async throws -> Bool)
        async throws -> Bool
    {
        try await client.withTransaction(logger: logger) { connection in
            let changed = try await change(connection)
            if changed, let audit { try await self.append(audit, on: connection) }
            return changed
        }
    }

    public func redeemEnrollmentCode(hash: String, now: Date) async throws -> CodeRedemption {
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                "SELECT user_id, expires_at, used_at FROM enrollment_codes WHERE code_hash = \(hash) FOR UPDATE",
                logger: logger)
            for try await (user, expiresAt, usedAt) in rows.decode((String, Double, Double?).self) {
                if usedAt != nil { return .alreadyUsed }
                if expiresAt <= now.timeIntervalSince1970 { return .expired(Date(timeIntervalSince1970: expiresAt)) }
                try await connection.query(
                    "UPDATE enrollment_codes SET used_at = \(now.timeIntervalSince1970) WHERE code_hash = \(hash)",
                    logger: logger)
                return .redeemed(UserID(user))
            }
            return .unknown
        }
    }

    public func createDevice(_ device: DeviceRecord, tokenHash: String, audit: LedgerEvent?) async throws {
        try await audited(audit) { connection in
            try await connection.query(
                """
                INSERT INTO devices (id, user_id, token_hash, platform, device_name, enrolled_at)
                VALUES (\(device.id.rawValue), \(device.userId.rawValue), \(tokenHash), \(device.platform),
                        \(device.deviceName), \(device.enrolledAt.timeIntervalSince1970))
                """, logger: self.logger)
            return true
        }
    }

    static let deviceColumns = "id, user_id, platform, device_name, enrolled_at, last_seen_at, revoked_at, state"

    func devices(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [DeviceRecord] {
        var devices: [DeviceRecord] = []
        let rows =
            if let connection {
                try await connection.query(query, logger: logger)
            } else {
                try await client.query(query, logger: logger)
            }
        for try await (id, user, platform, name, enrolled, lastSeen, revoked, state)
            in rows
            .decode((String, String, String, String?, Double, Double?, Double?, String?).self)
        {
            devices.append(
                DeviceRecord(
                    id: DeviceID(id), userId: UserID(user), platform: platform, deviceName: name,
                    enrolledAt: Date(timeIntervalSince1970: enrolled),
                    lastSeenAt: lastSeen.map(Date.init(timeIntervalSince1970:)),
                    revokedAt: revoked.map(Date.init(timeIntervalSince1970:)),
                    state: DeviceState.decoded(state)))
        }
        return devices
    }

    public func saveDeviceState(_ state: DeviceState, device: DeviceID) async throws {
        let at = state.observedAt.timeIntervalSince1970
        try await client.query(
            """
            UPDATE devices SET state = \(state.encoded()), state_observed_at = \(at)
            WHERE id = \(device.rawValue) AND COALESCE(state_observed_at, 0) <= \(at)
            """, logger: logger)
    }

    public func device(tokenHash: String, now: Date) async throws -> DeviceRecord? {
        let found = try await devices(
            PostgresQuery(
                unsafeSQL: "SELECT \(Self.deviceColumns) FROM devices WHERE token_hash = $1",
                binds: try binds(tokenHash))
        ).first
        guard var device = found, DeviceRecord.lastSeenIsStale(device.lastSeenAt, now: now) else { return found }
        try await client.query(
            "UPDATE devices SET last_seen_at = GREATEST(COALESCE(last_seen_at, 0), \(now.timeIntervalSince1970)) WHERE id = \(device.id.rawValue)",
            logger: logger)
        device.lastSeenAt = now
        return device
    }

    public func devices(userId: UserID?) async throws -> [DeviceRecord] {
        if let userId {
            return try await devices(
                PostgresQuery(
                    unsafeSQL: "SELECT \(Self.deviceColumns) FROM devices WHERE user_id = $1 ORDER BY enrolled_at",
                    binds: try binds(userId.rawValue)))
        }
        return try await devices(
            PostgresQuery(unsafeSQL: "SELECT \(Self.deviceColumns) FROM devices ORDER BY enrolled_at"))
    }

    public func revokeDevice(id: DeviceID, now: Date, audit: LedgerEvent?) async throws -> DeviceRecord? {
        try await client.withTransaction(logger: logger) { connection in
            let wasActive = try await self.flag(
                "SELECT revoked_at IS NULL FROM devices WHERE id = \(id.rawValue) FOR UPDATE", on: connection)
            let query = PostgresQuery(
                unsafeSQL:
                    "UPDATE devices SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 "
                    + "RETURNING \(Self.deviceColumns)",
                binds: try binds(now.timeIntervalSince1970, id.rawValue))
            let device = try await self.devices(query, on: connection).first
            if let audit, wasActive { try await self.append(audit, on: connection) }
            return device
        }
    }

    /// The one boolean `query` selects (false when it finds no row).
    func flag(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Bool {
        for try await value in try await connection.query(query, logger: logger).decode(Bool.self) { return value }
        return false
    }

    // MARK: - Admin

    public func updateSite(_ site: SiteRecord, audit: LedgerEvent?) async throws -> Bool {
        do {
            return try await audited(audit) { connection in
                let rows = try await connection.query(
                    """
                    UPDATE sites SET name = \(site.name), time_zone = \(site.timeZone),
                        beacon_uuid = \(site.beacon.uuid.uuidString), major = \(Int(site.beacon.major)),
                        geofence_latitude = \(site.geofence?.latitude),
                        geofence_longitude = \(site.geofence?.longitude),
                        geofence_radius_meters = \(site.geofence?.radiusMeters)
                    WHERE id = \(site.id.rawValue) RETURNING 1
                    """, logger: self.logger
                ).collect()
                return !rows.isEmpty
            }
        } catch  where Self.isUniqueViolation(error) {
            throw RepositoryError(kind: .conflict, detail: "another site already uses beacon \(site.beacon)")
        }
    }

    public func deactivateSite(id: SiteID, now: Date, audit: LedgerEvent?) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            let time = now.timeIntervalSince1970
            var found: Double?? = .none
            for try await deactivated in try await connection.query(
                """
                UPDATE sites SET deactivated_at = COALESCE(deactivated_at, \(time))
                WHERE id = \(id.rawValue) RETURNING deactivated_at
                """, logger: self.logger
            ).decode(Double?.self) { found = .some(deactivated) }
            guard case .some(let deactivatedAt) = found else { return false }
            if let audit, deactivatedAt == time { try await self.append(audit, on: connection) }
            return true
        }
    }

    public func createBeacon(_ beacon: BeaconRecord, audit: LedgerEvent?) async throws {
        do {
            try await audited(audit) { connection in
                try await connection.query(
                    """
                    INSERT INTO beacons (id, site_id, minor, label, tx_power_dbm)
                    VALUES (\(beacon.id), \(beacon.siteId.rawValue), \(Int(beacon.minor)), \(beacon.label),
                            \(beacon.txPowerDBm))
                    """, logger: self.logger)
                return true
            }
        } catch  where Self.isUniqueViolation(error) {
            throw RepositoryError(
                kind: .conflict, detail: "site '\(beacon.siteId)' already has a beacon with minor \(beacon.minor)")
        }
    }

    public func beacons(siteId: SiteID?) async throws -> [BeaconRecord] {
        let query =
            try siteId.map {
                PostgresQuery(
                    unsafeSQL:
                        "SELECT id, site_id, minor, label, tx_power_dbm FROM beacons WHERE site_id = $1 ORDER BY minor",
                    binds: try binds($0.rawValue))
            }
            ?? PostgresQuery(
                unsafeSQL: "SELECT id, site_id, minor, label, tx_power_dbm FROM beacons ORDER BY site_id, minor")
        var beacons: [BeaconRecord] = []
        for try await (id, site, minor, label, power) in try await client.query(query, logger: logger).decode(
            (String, String, Int, String?, Double?).self)
        {
            beacons.append(
                BeaconRecord(id: id, siteId: SiteID(site), minor: UInt16(minor), label: label, txPowerDBm: power))
        }
        return beacons
    }

    public func deleteBeacon(id: String, audit: LedgerEvent?) async throws -> Bool {
        try await audited(audit) { connection in
            !(try await connection.query("DELETE FROM beacons WHERE id = \(id) RETURNING 1", logger: self.logger)
                .collect())
                .isEmpty
        }
    }

    public func employees() async throws -> [EmployeeRecord] {
        try await employees(PostgresQuery(unsafeSQL: "SELECT \(Self.employeeColumns) FROM employees ORDER BY name, id"))
    }

    public func pendingEvents(userId: UserID) async throws -> [PendingEventRecord] {
        var events: [PendingEventRecord] = []
        let rows = try await client.query(
            """
            SELECT id, session_key, kind, at, reason,
                received_at FROM pending_session_events WHERE user_id = \(userId.rawValue) ORDER BY id
            """, logger: logger)
        for try await (id, key, kind, at, reason, received) in rows.decode(
            (Int64, String, String, Double, String?, Double).self)
        {
            events.append(
                PendingEventRecord(
                    sessionKey: SessionKey(key),
                    kind: try StoredValue.decode(
                        kind, as: SessionEventCommand.Kind.self, table: "pending_session_events", row: "\(id)",
                        column: "kind"),
                    at: Date(timeIntervalSince1970: at), reason: reason,
                    receivedAt: Date(timeIntervalSince1970: received)))
        }
        return events
    }

    public func deactivateEmployee(id: UserID, now: Date, audit: LedgerEvent?) async throws -> EmployeeRecord? {
        try await client.withTransaction(logger: logger) { connection in
            let time = now.timeIntervalSince1970
            let wasActive = try await self.flag(
                "SELECT deactivated_at IS NULL FROM employees WHERE id = \(id.rawValue) FOR UPDATE", on: connection)
            let deactivated = try await self.employees(
                PostgresQuery(
                    unsafeSQL: """
                        UPDATE employees SET deactivated_at = COALESCE(deactivated_at,
                            $1) WHERE id = $2 RETURNING \(Self.employeeColumns)
                        """, binds: try binds(time, id.rawValue)), on: connection
            ).first
            guard let deactivated else { return nil }
            try await connection.query(
                "UPDATE devices SET revoked_at = COALESCE(revoked_at, \(time)) WHERE user_id = \(id.rawValue)",
                logger: self.logger)
            if let audit, wasActive { try await self.append(audit, on: connection) }
            return deactivated
        }
    }

    public func updateEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws -> Bool {
        do {
            return try await audited(audit) { connection in
                let rows = try await connection.query(
                    """
                    UPDATE employees SET name = \(employee.name), external_id = \(employee.externalId),
                        email = \(employee.email)
                    WHERE id = \(employee.id.rawValue) RETURNING 1
                    """, logger: self.logger
                ).collect()
                return !rows.isEmpty
            }
        } catch  where Self.isUniqueViolation(error) {
            throw RepositoryError(
                kind: .conflict, detail: "another employee already has external id '\(employee.externalId ?? "")'")
        }
    }

    public func sessions(_ filter: SessionFilter, after cursor: SessionCursor?, limit: Int) async throws
        -> [SessionRecord]
    {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        func bind(_ value: some PostgresEncodable & Sendable) throws -> String {
            try bindings.append(value)
            return "$" + String(bindings.count)
        }
        if let user = filter.userId { conditions.append("user_id = " + (try bind(user.rawValue))) }
        if let site = filter.siteId { conditions.append("site_id = " + (try bind(site.rawValue))) }
        if let from = filter.from {
            conditions.append(
                "(check_out_at IS NULL OR check_out_at >= " + (try bind(from.timeIntervalSince1970)) + ")")
        }
        if let to = filter.to { conditions.append("check_in_at < " + (try bind(to.timeIntervalSince1970))) }
        if let source = filter.source { conditions.append("source = " + (try bind(source.rawValue))) }
        if filter.correctedOnly { conditions.append("corrected") }
        if let skew = filter.minSkewSeconds { conditions.append("ABS(clock_skew_seconds) >= " + (try bind(skew))) }
        if let cursor {
            let at = try bind(cursor.checkInAt.timeIntervalSince1970)
            let key = try bind(cursor.sessionKey.rawValue)
            // The same collation as the ORDER BY, or a page could skip or repeat sessions.
            conditions.append("(check_in_at > \(at) OR (check_in_at = \(at) AND session_key COLLATE \"C\" > \(key)))")
        }
        let sql =
            "SELECT \(Self.sessionColumns) FROM sessions"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY check_in_at, session_key COLLATE \"C\" LIMIT " + (try bind(limit))
        return try await sessions(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }
}
