import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: AuthRepository {

    public func installAdminToken(hash: String, now: Date) async throws -> Bool {
        try await writer.write { db in
            guard try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM admin_tokens")) == 0 else {
                return false
            }
            try db.cachedStatement(sql: "INSERT INTO admin_tokens (token_hash, created_at) VALUES (?, ?)").execute(
                arguments: [hash, now.timeIntervalSince1970])
            return true
        }
    }

    public func replaceAdminTokens(hash: String, now: Date) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM admin_tokens WHERE token_hash <> ?").execute(arguments: [hash])
            try db.cachedStatement(
                sql:
                    "INSERT INTO admin_tokens (token_hash, created_at) VALUES (?, ?) ON CONFLICT (token_hash) DO NOTHING"
            ).execute(arguments: [hash, now.timeIntervalSince1970])
        }
    }

    public func isAdminToken(hash: String) async throws -> Bool {
        try await writer.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM admin_tokens WHERE token_hash = ?"), arguments: [hash])
                == 1
        }
    }

    public func createEnrollmentCode(hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?)
        async throws
    {
        try await writer.write { db in
            _ = try Self.audited(true, audit, db: db)
            try db.cachedStatement(
                sql: "INSERT INTO enrollment_codes (code_hash, user_id, expires_at, created_at) VALUES (?, ?, ?, ?)"
            ).execute(arguments: [hash, userId.rawValue, expiresAt.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    public func redeemEnrollmentCode(hash: String, now: Date) async throws -> CodeRedemption {
        try await writer.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM enrollment_codes WHERE code_hash = ?"), arguments: [hash])
            else { return .unknown }
            if (row["used_at"] as Double?) != nil { return .alreadyUsed }
            let expiresAt = Date(timeIntervalSince1970: row["expires_at"])
            if expiresAt <= now { return .expired(expiresAt) }
            try db.cachedStatement(
                sql: "UPDATE enrollment_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL"
            ).execute(arguments: [now.timeIntervalSince1970, hash])
            return db.changesCount == 1 ? .redeemed(UserID(row["user_id"])) : .alreadyUsed
        }
    }

    public func createDevice(_ device: DeviceRecord, tokenHash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            _ = try Self.audited(true, audit, db: db)
            try db.cachedStatement(
                sql:
                    "INSERT INTO devices (id, user_id, token_hash, platform, device_name, enrolled_at) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [
                device.id.rawValue, device.userId.rawValue, tokenHash, device.platform, device.deviceName,
                device.enrolledAt.timeIntervalSince1970,
            ])
        }
    }

    public func device(tokenHash: String, now: Date) async throws -> DeviceRecord? {
        let found = try await writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM devices WHERE token_hash = ?"), arguments: [tokenHash]
            ).map(Self.device)
        }
        guard var device = found, DeviceRecord.lastSeenIsStale(device.lastSeenAt, now: now) else { return found }
        let id = device.id.rawValue
        try await writer.write { db in
            try db.cachedStatement(
                sql: "UPDATE devices SET last_seen_at = MAX(COALESCE(last_seen_at, 0), ?) WHERE id = ?"
            ).execute(arguments: [now.timeIntervalSince1970, id])
        }
        device.lastSeenAt = now
        return device
    }

    public func devices(userId: UserID?) async throws -> [DeviceRecord] {
        try await writer.read { db in
            if let userId {
                return try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM devices WHERE user_id = ? ORDER BY enrolled_at"),
                    arguments: [userId.rawValue]
                ).map(Self.device)
            }
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM devices ORDER BY enrolled_at")).map(
                Self.device)
        }
    }

    public func revokeDevice(id: DeviceID, now: Date, audit: LedgerEvent?) async throws -> DeviceRecord? {
        try await writer.write { db in
            let sql = "SELECT revoked_at IS NULL FROM devices WHERE id = ?"
            _ = try Self.audited(
                try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]) == true, audit, db: db)
            try db.cachedStatement(sql: "UPDATE devices SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?").execute(
                arguments: [now.timeIntervalSince1970, id.rawValue])
            return try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM devices WHERE id = ?"), arguments: [id.rawValue]
            ).map(Self.device)
        }
    }

    static func device(_ row: Row) -> DeviceRecord {
        let lastSeen: Double? = row["last_seen_at"]
        let revoked: Double? = row["revoked_at"]
        return DeviceRecord(
            id: DeviceID(row["id"]), userId: UserID(row["user_id"]), platform: row["platform"],
            deviceName: row["device_name"],
            enrolledAt: Date(timeIntervalSince1970: row["enrolled_at"]),
            lastSeenAt: lastSeen.map(Date.init(timeIntervalSince1970:)),
            revokedAt: revoked.map(Date.init(timeIntervalSince1970:)),
            state: DeviceState.decoded(row["state"]))
    }

    public func saveDeviceState(_ state: DeviceState, device: DeviceID) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE devices SET state = ?, state_observed_at = ?
                    WHERE id = ? AND COALESCE(state_observed_at, 0) <= ?
                    """,
                arguments: [
                    state.encoded(), state.observedAt.timeIntervalSince1970, device.rawValue,
                    state.observedAt.timeIntervalSince1970,
                ])
        }
    }
}
