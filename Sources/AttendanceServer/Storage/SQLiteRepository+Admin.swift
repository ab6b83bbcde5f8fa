import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: AdminRepository {

    public func updateSite(_ site: SiteRecord, audit: LedgerEvent?) async throws -> Bool {
        try await writer.write { db in
            do {
                try db.cachedStatement(
                    sql: """
                        UPDATE sites SET name = ?, time_zone = ?, beacon_uuid = ?, major = ?, geofence_latitude = ?, geofence_longitude = ?,
                        geofence_radius_meters = ? WHERE id = ?
                        """
                ).execute(arguments: [
                    site.name, site.timeZone, site.beacon.uuid.uuidString, Int(site.beacon.major),
                    site.geofence?.latitude,
                    site.geofence?.longitude, site.geofence?.radiusMeters, site.id.rawValue,
                ])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw RepositoryError(kind: .conflict, detail: "another site already uses beacon \(site.beacon)")
            }
            return try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func deactivateSite(id: SiteID, now: Date, audit: LedgerEvent?) async throws -> Bool {
        try await writer.write { db in
            let sql = "SELECT deactivated_at IS NULL FROM sites WHERE id = ?"
            guard let active = try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]) else {
                return false
            }
            try db.cachedStatement(sql: "UPDATE sites SET deactivated_at = COALESCE(deactivated_at, ?) WHERE id = ?")
                .execute(arguments: [now.timeIntervalSince1970, id.rawValue])
            _ = try Self.audited(active, audit, db: db)
            return true
        }
    }

    /// Writes `audit` when `changed`; returns `changed`.
    static func audited(_ changed: Bool, _ audit: LedgerEvent?, db: Database) throws -> Bool {
        if changed, let audit { try append(audit, db: db) }
        return changed
    }

    public func createBeacon(_ beacon: BeaconRecord, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            do {
                try db.cachedStatement(
                    sql: "INSERT INTO beacons (id, site_id, minor, label, tx_power_dbm) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [
                    beacon.id, beacon.siteId.rawValue, Int(beacon.minor), beacon.label, beacon.txPowerDBm,
                ])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw RepositoryError(
                    kind: .conflict, detail: "site '\(beacon.siteId)' already has a beacon with minor \(beacon.minor)")
            }
            _ = try Self.audited(true, audit, db: db)
        }
    }

    public func beacons(siteId: SiteID?) async throws -> [BeaconRecord] {
        try await writer.read { db in
            let rows =
                try siteId.map {
                    try Row.fetchAll(
                        db.cachedStatement(sql: "SELECT * FROM beacons WHERE site_id = ? ORDER BY minor"),
                        arguments: [$0.rawValue])
                }
                ?? Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM beacons ORDER BY site_id, minor"))
            return rows.map { row in
                BeaconRecord(
                    id: row["id"], siteId: SiteID(row["site_id"]), minor: UInt16(row["minor"] as Int),
                    label: row["label"],
                    txPowerDBm: row["tx_power_dbm"])
            }
        }
    }

    public func deleteBeacon(id: String, audit: LedgerEvent?) async throws -> Bool {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM beacons WHERE id = ?").execute(arguments: [id])
            return try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func employees() async throws -> [EmployeeRecord] {
        try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM employees ORDER BY name, id")).map(
                Self.employeeRecord)
        }
    }

    public func pendingEvents(userId: UserID) async throws -> [PendingEventRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM pending_session_events WHERE user_id = ? ORDER BY id"),
                arguments: [userId.rawValue]
            ).map { row in
                PendingEventRecord(
                    sessionKey: SessionKey(row["session_key"]),
                    kind: try StoredValue.decode(
                        row["kind"] as String, as: SessionEventCommand.Kind.self, table: "pending_session_events",
                        row: "\(row["id"] as Int64)", column: "kind"),
                    at: Date(timeIntervalSince1970: row["at"]), reason: row["reason"],
                    receivedAt: Date(timeIntervalSince1970: row["received_at"]))
            }
        }
    }

    public func deactivateEmployee(id: UserID, now: Date, audit: LedgerEvent?) async throws -> EmployeeRecord? {
        try await writer.write { db in
            let time = now.timeIntervalSince1970
            let sql = "SELECT deactivated_at IS NULL FROM employees WHERE id = ?"
            let active = try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]) == true
            try db.cachedStatement(
                sql: "UPDATE employees SET deactivated_at = COALESCE(deactivated_at, ?) WHERE id = ?"
            )
            .execute(arguments: [time, id.rawValue])
            guard db.changesCount == 1 else { return nil }
            try db.cachedStatement(sql: "UPDATE devices SET revoked_at = COALESCE(revoked_at, ?) WHERE user_id = ?")
                .execute(arguments: [time, id.rawValue])
            _ = try Self.audited(active, audit, db: db)
            return try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM employees WHERE id = ?"), arguments: [id.rawValue]
            )
            .map(Self.employeeRecord)
        }
    }

    public func updateEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws -> Bool {
        try await writer.write { db in
            do {
                try db.cachedStatement(sql: "UPDATE employees SET name = ?, external_id = ?, email = ? WHERE id = ?")
                    .execute(arguments: [employee.name, employee.externalId, employee.email, employee.id.rawValue])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw RepositoryError(
                    kind: .conflict, detail: "another employee already has external id '\(employee.externalId ?? "")'")
            }
            return try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func sessions(_ filter: SessionFilter, after cursor: SessionCursor?, limit: Int) async throws
        -> [SessionRecord]
    {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let user = filter.userId {
            conditions.append("user_id = ?")
            arguments.append(user.rawValue)
        }
        if let site = filter.siteId {
            conditions.append("site_id = ?")
            arguments.append(site.rawValue)
        }
        if let from = filter.from {
            conditions.append("(check_out_at IS NULL OR check_out_at >= ?)")
            arguments.append(from.timeIntervalSince1970)
        }
        if let to = filter.to {
            conditions.append("check_in_at < ?")
            arguments.append(to.timeIntervalSince1970)
        }
        if let source = filter.source {
            conditions.append("source = ?")
            arguments.append(source.rawValue)
        }
        if filter.correctedOnly { conditions.append("corrected = 1") }
        if let skew = filter.minSkewSeconds {
            conditions.append("ABS(clock_skew_seconds) >= ?")
            arguments.append(skew)
        }
        if let cursor {
            conditions.append("(check_in_at > ? OR (check_in_at = ? AND session_key > ?))")
            arguments += [
                cursor.checkInAt.timeIntervalSince1970, cursor.checkInAt.timeIntervalSince1970,
                cursor.sessionKey.rawValue,
            ]
        }
        arguments.append(limit)
        let sql =
            "SELECT \(Self.sessionColumns) FROM sessions"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY check_in_at, session_key LIMIT ?"
        let bound = StatementArguments(arguments)
        return try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: bound).map(Self.sessionRecord)
        }
    }
}
