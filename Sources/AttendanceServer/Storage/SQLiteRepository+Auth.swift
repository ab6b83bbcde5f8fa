import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: AuthRepository {
    static func registerAuthMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-22 auth") { db in
            try db.execute(sql: """
                CREATE TABLE adminTokens (tokenHash TEXT PRIMARY KEY, createdAt REAL NOT NULL);
                CREATE TABLE enrollmentCodes (
                    codeHash TEXT PRIMARY KEY,
                    userId TEXT NOT NULL REFERENCES employees(id),
                    expiresAt REAL NOT NULL,
                    usedAt REAL,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,
                    userId TEXT NOT NULL REFERENCES employees(id),
                    tokenHash TEXT NOT NULL UNIQUE,
                    platform TEXT NOT NULL,
                    deviceName TEXT,
                    enrolledAt REAL NOT NULL,
                    lastSeenAt REAL,
                    revokedAt REAL
                );
                CREATE INDEX devices_by_user ON devices (userId);
                """)
        }
    }

    /// After every earlier migration (registered last).
    static func registerDeviceStateMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-25 device state") { db in
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN state TEXT")
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN stateObservedAt REAL")
        }
    }

    public func installAdminToken(hash: String, now: Date) async throws -> Bool {
        try await writer.write { db in
            guard try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM adminTokens")) == 0 else { return false }
            try db.cachedStatement(sql: "INSERT INTO adminTokens (tokenHash, createdAt) VALUES (?, ?)").execute(arguments: [hash, now.timeIntervalSince1970])
            return true
        }
    }

    public func replaceAdminTokens(hash: String, now: Date) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM adminTokens WHERE tokenHash <> ?").execute(arguments: [hash])
            try db.cachedStatement(sql: "INSERT INTO adminTokens (tokenHash, createdAt) VALUES (?, ?) ON CONFLICT (tokenHash) DO NOTHING").execute(arguments: [hash, now.timeIntervalSince1970])
        }
    }

    public func isAdminToken(hash: String) async throws -> Bool {
        try await writer.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM adminTokens WHERE tokenHash = ?"), arguments: [hash]) == 1 }
    }

    public func createEnrollmentCode(hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?)
        async throws
    {
        try await writer.write { db in
            _ = try Self.audited(true, audit, db: db)
            try db.cachedStatement(sql: "INSERT INTO enrollmentCodes (codeHash, userId, expiresAt, createdAt) VALUES (?, ?, ?, ?)").execute(arguments: [hash, userId.rawValue, expiresAt.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    public func redeemEnrollmentCode(hash: String, now: Date) async throws -> CodeRedemption {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM enrollmentCodes WHERE codeHash = ?"), arguments: [hash]) else { return .unknown }
            if (row["usedAt"] as Double?) != nil { return .alreadyUsed }
            let expiresAt = Date(timeIntervalSince1970: row["expiresAt"])
            if expiresAt <= now { return .expired(expiresAt) }
            try db.cachedStatement(sql: "UPDATE enrollmentCodes SET usedAt = ? WHERE codeHash = ? AND usedAt IS NULL").execute(arguments: [now.timeIntervalSince1970, hash])
            return db.changesCount == 1 ? .redeemed(UserID(row["userId"])) : .alreadyUsed
        }
    }

    public func createDevice(_ device: DeviceRecord, tokenHash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            _ = try Self.audited(true, audit, db: db)
            try db.cachedStatement(sql: "INSERT INTO devices (id, userId, tokenHash, platform, deviceName, enrolledAt) VALUES (?, ?, ?, ?, ?, ?)").execute(arguments: [device.id.rawValue, device.userId.rawValue, tokenHash, device.platform, device.deviceName,
                                       device.enrolledAt.timeIntervalSince1970])
        }
    }

    public func device(tokenHash: String, now: Date) async throws -> DeviceRecord? {
        let found = try await writer.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM devices WHERE tokenHash = ?"), arguments: [tokenHash]).map(Self.device)
        }
        guard var device = found, DeviceRecord.lastSeenIsStale(device.lastSeenAt, now: now) else { return found }
        let id = device.id.rawValue
        try await writer.write { db in
            try db.cachedStatement(sql: "UPDATE devices SET lastSeenAt = MAX(COALESCE(lastSeenAt, 0), ?) WHERE id = ?").execute(arguments: [now.timeIntervalSince1970, id])
        }
        device.lastSeenAt = now
        return device
    }

    public func devices(userId: UserID?) async throws -> [DeviceRecord] {
        try await writer.read { db in
            if let userId {
                return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM devices WHERE userId = ? ORDER BY enrolledAt"), arguments: [userId.rawValue]).map(Self.device)
            }
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM devices ORDER BY enrolledAt")).map(Self.device)
        }
    }

    public func revokeDevice(id: DeviceID, now: Date, audit: LedgerEvent?) async throws -> DeviceRecord? {
        try await writer.write { db in
            let sql = "SELECT revokedAt IS NULL FROM devices WHERE id = ?"
            _ = try Self.audited(
                try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]) == true, audit, db: db)
            try db.cachedStatement(sql: "UPDATE devices SET revokedAt = COALESCE(revokedAt, ?) WHERE id = ?").execute(arguments: [now.timeIntervalSince1970, id.rawValue])
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM devices WHERE id = ?"), arguments: [id.rawValue]).map(Self.device)
        }
    }

    static func device(_ row: Row) -> DeviceRecord {
        let lastSeen: Double? = row["lastSeenAt"]
        let revoked: Double? = row["revokedAt"]
        return DeviceRecord(id: DeviceID(row["id"]), userId: UserID(row["userId"]), platform: row["platform"], deviceName: row["deviceName"],
                            enrolledAt: Date(timeIntervalSince1970: row["enrolledAt"]), lastSeenAt: lastSeen.map(Date.init(timeIntervalSince1970:)),
                            revokedAt: revoked.map(Date.init(timeIntervalSince1970:)),
                            state: DeviceState.decoded(row["state"]))
    }

    public func saveDeviceState(_ state: DeviceState, device: DeviceID) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE devices SET state = ?, stateObservedAt = ?
                    WHERE id = ? AND COALESCE(stateObservedAt, 0) <= ?
                    """,
                arguments: [state.encoded(), state.observedAt.timeIntervalSince1970, device.rawValue,
                            state.observedAt.timeIntervalSince1970])
        }
    }
}
