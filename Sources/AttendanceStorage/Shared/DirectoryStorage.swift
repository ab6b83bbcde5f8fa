import AttendanceModels
import AttendanceRules
import Foundation

// Sites, employees, beacons and the reads of sessions admins list.
extension SQLStorage {
    /// The number the database's triggers bump on every change a process may cache.
    public func directoryVersion() async throws -> Int64 {
        try await database.read { try await $0.value("SELECT version FROM directory_version WHERE id = 1") ?? 0 }
    }

    public func createSite(_ site: SiteRecord, audit: LedgerEvent?) async throws {
        try await database.unique(
            "'major' is '\(site.beacon.major)'; expected a major no other site of beacon UUID \(site.beacon.uuid) uses"
        ) {
            try await database.write { tx in
                try await tx.execute(
                    """
                    INSERT INTO sites (id, name, time_zone, beacon_uuid, major, geofence_latitude, geofence_longitude,
                                       geofence_radius_meters)
                    VALUES (\(site.id), \(site.name), \(site.timeZone), \(site.beacon.uuid.uuidString),
                            \(Int(site.beacon.major)), \(site.geofence?.latitude), \(site.geofence?.longitude),
                            \(site.geofence?.radiusMeters))
                    """)
                try await tx.audited(true, audit)
            }
        }
    }

    public func site(id: SiteID) async throws -> SiteRecord? {
        try await database.read { try await DirectoryRows.sites($0, "WHERE id = \(id)").first }
    }

    public func site(beacon: SiteBeacon) async throws -> SiteRecord? {
        try await database.read { tx in
            try await DirectoryRows.sites(
                tx, "WHERE beacon_uuid = \(beacon.uuid.uuidString) AND major = \(Int(beacon.major))"
            ).first
        }
    }

    public func sites() async throws -> [SiteRecord] {
        try await database.read { try await DirectoryRows.sites($0, "ORDER BY name, id") }
    }

    public func updateSite(_ site: SiteRecord, audit: LedgerEvent?) async throws -> Bool {
        try await database.unique("another site already uses beacon \(site.beacon)") {
            try await database.write { tx in
                let changed = try await tx.execute(
                    """
                    UPDATE sites SET name = \(site.name), time_zone = \(site.timeZone),
                        beacon_uuid = \(site.beacon.uuid.uuidString), major = \(Int(site.beacon.major)),
                        geofence_latitude = \(site.geofence?.latitude),
                        geofence_longitude = \(site.geofence?.longitude),
                        geofence_radius_meters = \(site.geofence?.radiusMeters)
                    WHERE id = \(site.id)
                    """)
                return try await tx.audited(changed == 1, audit)
            }
        }
    }

    public func deactivateSite(id: SiteID, now: Date, audit: LedgerEvent?) async throws -> Bool {
        try await database.write { tx in
            guard
                let active = try await tx.value(
                    "SELECT deactivated_at IS NULL FROM sites WHERE id = \(id)\(raw: tx.dialect.forUpdate)",
                    as: Bool.self)
            else { return false }
            try await tx.execute("UPDATE sites SET deactivated_at = COALESCE(deactivated_at, \(now)) WHERE id = \(id)")
            try await tx.audited(active, audit)
            return true
        }
    }

    public func createEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws {
        let conflict =
            employee.externalId.map { "'externalId' is '\($0)'; expected an employee number no other employee has" }
            ?? "an employee with id '\(employee.id)' already exists"
        try await database.unique(conflict) {
            try await database.write { tx in
                try await tx.execute(
                    """
                    INSERT INTO employees (id, name, external_id, email)
                    VALUES (\(employee.id), \(employee.name), \(employee.externalId), \(employee.email))
                    """)
                try await tx.audited(true, audit)
            }
        }
    }

    public func employee(id: UserID) async throws -> EmployeeRecord? {
        try await database.read { try await DirectoryRows.employees($0, "WHERE id = \(id)").first }
    }

    public func employees() async throws -> [EmployeeRecord] {
        try await database.read { try await DirectoryRows.employees($0, "ORDER BY name, id") }
    }

    public func updateEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws -> Bool {
        try await database.unique(
            "'externalId' is '\(employee.externalId ?? "")'; expected an employee number no other employee has"
        ) {
            try await database.write { tx in
                let changed = try await tx.execute(
                    """
                    UPDATE employees SET name = \(employee.name), external_id = \(employee.externalId),
                        email = \(employee.email)
                    WHERE id = \(employee.id)
                    """)
                return try await tx.audited(changed == 1, audit)
            }
        }
    }

    public func deactivateEmployee(id: UserID, now: Date, audit: LedgerEvent?) async throws -> DeactivatedEmployee? {
        // The open sessions' keys first: on PostgreSQL the transaction takes their locks, as every
        // session write does. The employee's phones are revoked in it, so none opens another.
        let open = try await database.read { tx in
            try await tx.query(
                """
                SELECT session_key FROM sessions
                WHERE user_id = \(id) AND check_out_at IS NULL AND voided_at IS NULL
                """
            ).map { try $0.decode(0, as: String.self) }
        }
        return try await database.write(locking: open) { tx in
            let active = try await tx.value(
                "SELECT deactivated_at IS NULL FROM employees WHERE id = \(id)\(raw: tx.dialect.forUpdate)",
                as: Bool.self)
            guard let active else { return nil }
            try await tx.execute(
                "UPDATE employees SET deactivated_at = COALESCE(deactivated_at, \(now)) WHERE id = \(id)")
            try await tx.execute("UPDATE devices SET revoked_at = COALESCE(revoked_at, \(now)) WHERE user_id = \(id)")
            try await tx.audited(active, audit)
            var closed: [SessionRecord] = []
            for key in open.map({ SessionKey($0) }) {
                guard let session = try await SessionWrites.session(tx, key: key), session.checkOutAt == nil else {
                    continue
                }
                let outcome = try await SessionWrites.correct(
                    tx, key, .deactivation(of: session, at: now), actor: audit?.actor ?? .server, requestId: nil,
                    now: now)
                if case .applied(let after) = outcome { closed.append(after) }
            }
            guard let employee = try await DirectoryRows.employees(tx, "WHERE id = \(id)").first else { return nil }
            return DeactivatedEmployee(employee: employee, closedSessions: closed)
        }
    }

    /// Makes a deactivated employee active again; their devices stay revoked (each phone enrolls
    /// again with a new code). Nil when there is no such employee.
    public func reactivateEmployee(id: UserID, audit: LedgerEvent?) async throws -> EmployeeRecord? {
        try await database.write { tx in
            let inactive = try await tx.value(
                "SELECT deactivated_at IS NOT NULL FROM employees WHERE id = \(id)\(raw: tx.dialect.forUpdate)",
                as: Bool.self)
            guard let inactive else { return nil }
            try await tx.execute("UPDATE employees SET deactivated_at = NULL WHERE id = \(id)")
            try await tx.audited(inactive, audit)
            return try await DirectoryRows.employees(tx, "WHERE id = \(id)").first
        }
    }

    public func createBeacon(_ beacon: BeaconRecord, audit: LedgerEvent?) async throws {
        try await database.unique("site '\(beacon.siteId)' already has a beacon with minor \(beacon.minor)") {
            try await database.write { tx in
                try await tx.execute(
                    """
                    INSERT INTO beacons (id, site_id, minor, label, tx_power_dbm)
                    VALUES (\(beacon.id), \(beacon.siteId), \(Int(beacon.minor)), \(beacon.label), \(beacon.txPowerDBm))
                    """)
                try await tx.audited(true, audit)
            }
        }
    }

    public func beacons(siteId: SiteID?) async throws -> [BeaconRecord] {
        let condition: SQL = siteId.map { "WHERE site_id = \($0) ORDER BY minor" } ?? "ORDER BY site_id, minor"
        return try await database.read { tx in
            try await tx.query("SELECT id, site_id, minor, label, tx_power_dbm FROM beacons \(condition)").map { row in
                BeaconRecord(
                    id: try row[0], siteId: try row[1], minor: UInt16(try row[2] as Int), label: try row[3],
                    txPowerDBm: try row[4])
            }
        }
    }

    public func deleteBeacon(id: BeaconID, audit: LedgerEvent?) async throws -> Bool {
        try await database.write { tx in
            try await tx.audited(try await tx.execute("DELETE FROM beacons WHERE id = \(id)") == 1, audit)
        }
    }

    public func pendingEvents(userId: UserID) async throws -> [PendingEventRecord] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT id, session_key, kind, at, reason, received_at FROM pending_session_events
                WHERE user_id = \(userId) ORDER BY id
                """
            ).map { row in
                let id: Int64 = try row[0]
                return PendingEventRecord(
                    sessionKey: try row[1],
                    kind: try StoredValue.decode(
                        try row[2] as String, as: SessionEventCommand.Kind.self, table: "pending_session_events",
                        row: "\(id)", column: "kind"),
                    at: try row[3], reason: try row[4], receivedAt: try row[5])
            }
        }
    }

    /// The sessions with these keys, in no particular order.
    public func sessions(keys: [SessionKey]) async throws -> [SessionRecord] {
        guard !keys.isEmpty else { return [] }
        return try await database.read { tx in
            try await SessionRows.sessions(
                tx, "SELECT \(raw: SessionRows.columns) FROM sessions WHERE session_key \(anyOf: keys.map(\.rawValue))")
        }
    }

    public func sessions(
        _ filter: SessionFilter, after cursor: SessionCursor?, limit: Int
    ) async throws -> [SessionRecord] {
        var conditions: [SQL] = []
        if let user = filter.userId { conditions.append("user_id = \(user)") }
        if let site = filter.siteId { conditions.append("site_id = \(site)") }
        if let from = filter.from { conditions.append("(check_out_at IS NULL OR check_out_at >= \(from))") }
        if let to = filter.to { conditions.append("check_in_at < \(to)") }
        if let source = filter.source { conditions.append("source = \(source.rawValue)") }
        if filter.correctedOnly { conditions.append("corrected = \(true)") }
        if let skew = filter.minSkewSeconds { conditions.append("ABS(clock_skew_seconds) >= \(skew)") }
        let dialect = database.dialect
        // The same collation as the ORDER BY, or a page could skip or repeat sessions.
        let key = dialect.byteOrdered("session_key")
        let (beyond, order): (SQL, SQL) = filter.newestFirst ? ("<", " DESC") : (">", "")
        if let cursor {
            let at = cursor.checkInAt
            conditions.append(
                "(check_in_at \(beyond) \(at) OR (check_in_at = \(at) AND \(raw: key) \(beyond) \(cursor.sessionKey)))")
        }
        let condition = SQL.where(conditions)
        return try await database.read { tx in
            try await SessionRows.sessions(
                tx,
                """
                SELECT \(raw: SessionRows.columns) FROM sessions \(condition)
                ORDER BY check_in_at\(order), \(raw: key)\(order) LIMIT \(limit)
                """)
        }
    }
}

/// Site and employee rows, read the one way both databases return them.
package enum DirectoryRows {
    package static func sites(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [SiteRecord] {
        try await tx.query(
            """
            SELECT id, name, time_zone, beacon_uuid, major, geofence_latitude, geofence_longitude,
                geofence_radius_meters, deactivated_at
            FROM sites \(condition)
            """
        ).map { row in
            let id: String = try row[0]
            let uuidText: String = try row[3]
            guard let uuid = UUID(uuidString: uuidText) else {
                throw StoredValueError(
                    table: "sites", row: id, column: "beacon_uuid", value: uuidText, expected: "a UUID")
            }
            let latitude: Double? = try row[5]
            let longitude: Double? = try row[6]
            let radius: Double? = try row[7]
            var geofence: Geofence?
            if let latitude, let longitude, let radius {
                geofence = Geofence(latitude: latitude, longitude: longitude, radiusMeters: radius)
            }
            return SiteRecord(
                id: SiteID(id), name: try row[1], timeZone: try row[2],
                beacon: SiteBeacon(uuid: uuid, major: UInt16(try row[4] as Int)), geofence: geofence,
                deactivatedAt: try row[8])
        }
    }

    package static func employees(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [EmployeeRecord] {
        try await tx.query("SELECT id, name, external_id, email, deactivated_at FROM employees \(condition)").map {
            row in
            EmployeeRecord(
                id: try row[0], name: try row[1], externalId: try row[2], email: try row[3],
                deactivatedAt: try row[4])
        }
    }
}
