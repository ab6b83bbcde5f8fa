import AttendanceModels
import AttendanceRules
import Foundation

// The admin token, enrollment codes and devices.
extension SQLStorage {
    public func installAdminToken(hash: String, now: Date) async throws -> Bool {
        try await database.write(locking: ["admin tokens"]) { tx in
            guard try await tx.value("SELECT COUNT(*) FROM admin_tokens", as: Int.self) == 0 else { return false }
            try await tx.execute("INSERT INTO admin_tokens (token_hash, created_at) VALUES (\(hash), \(now))")
            return true
        }
    }

    public func replaceAdminTokens(hash: String, now: Date) async throws {
        try await database.write(locking: ["admin tokens"]) { tx in
            try await tx.execute("DELETE FROM admin_tokens WHERE token_hash <> \(hash)")
            try await tx.execute(
                """
                INSERT INTO admin_tokens (token_hash, created_at) VALUES (\(hash), \(now))
                ON CONFLICT (token_hash) DO NOTHING
                """)
        }
    }

    public func isAdminToken(hash: String) async throws -> Bool {
        try await database.read { tx in
            try await tx.value("SELECT COUNT(*) FROM admin_tokens WHERE token_hash = \(hash)", as: Int.self) == 1
        }
    }

    public func sharedSecret(name: String, candidate: String) async throws -> String {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO server_secrets (name, value) VALUES (\(name), \(candidate))
                ON CONFLICT (name) DO NOTHING
                """)
            return try await tx.value("SELECT value FROM server_secrets WHERE name = \(name)", as: String.self)
                ?? candidate
        }
    }

    public func createEnrollmentCode(
        hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?
    ) async throws {
        try await database.unique("an enrollment code with this hash exists") {
            try await insertEnrollmentCode(hash: hash, userId: userId, expiresAt: expiresAt, now: now, audit: audit)
        }
    }

    public func enrollmentCode(hash: String) async throws -> StoredEnrollmentCode? {
        try await database.read { tx in
            try await tx.query("SELECT user_id, expires_at, used_at FROM enrollment_codes WHERE code_hash = \(hash)")
                .first.map { row in
                    StoredEnrollmentCode(userId: try row[0], expiresAt: try row[1], usedAt: try row[2])
                }
        }
    }

    private func insertEnrollmentCode(
        hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?
    ) async throws {
        try await database.write { tx in
            try await tx.audited(true, audit)
            // One code is valid per person: a new one ends the unused ones before it.
            try await tx.execute(
                """
                UPDATE enrollment_codes SET expires_at = \(now)
                WHERE user_id = \(userId) AND used_at IS NULL AND expires_at > \(now)
                """)
            try await tx.execute(
                """
                INSERT INTO enrollment_codes (code_hash, user_id, expires_at, created_at)
                VALUES (\(hash), \(userId), \(expiresAt), \(now))
                """)
        }
    }

    public func redeemEnrollmentCode(hash: String, now: Date) async throws -> CodeRedemption {
        try await database.write { tx in
            guard
                let row = try await tx.query(
                    """
                    SELECT user_id, expires_at, used_at FROM enrollment_codes
                    WHERE code_hash = \(hash)\(raw: tx.dialect.forUpdate)
                    """
                ).first
            else { return .unknown }
            if try row.decode(2, as: Date?.self) != nil { return .alreadyUsed }
            let expiresAt: Date = try row[1]
            if expiresAt <= now { return .expired(expiresAt) }
            let used = try await tx.execute(
                "UPDATE enrollment_codes SET used_at = \(now) WHERE code_hash = \(hash) AND used_at IS NULL")
            return used == 1 ? .redeemed(try row[0]) : .alreadyUsed
        }
    }

    public func createDevice(_ device: DeviceRecord, tokenHash: String, audit: LedgerEvent?) async throws {
        try await database.write { tx in
            try await tx.audited(true, audit)
            try await tx.execute(
                """
                INSERT INTO devices (id, user_id, token_hash, platform, device_name, enrolled_at, app_version)
                VALUES (\(device.id), \(device.userId), \(tokenHash), \(device.platform), \(device.deviceName),
                        \(device.enrolledAt), \(device.appVersion))
                """)
        }
    }

    public func device(tokenHash: String, now: Date) async throws -> DeviceRecord? {
        let found = try await database.read {
            try await DeviceRows.devices($0, "WHERE token_hash = \(tokenHash)").first
        }
        guard var device = found, DeviceRecord.lastSeenIsStale(device.lastSeenAt, now: now) else { return found }
        let id = device.id
        try await database.write { tx in
            let latest = tx.dialect.greatest
            try await tx.execute(
                "UPDATE devices SET last_seen_at = \(raw: latest)(COALESCE(last_seen_at, 0), \(now)) WHERE id = \(id)")
        }
        device.lastSeenAt = now
        return device
    }

    public func devices(userId: UserID?) async throws -> [DeviceRecord] {
        let condition: SQL = userId.map { "WHERE user_id = \($0) ORDER BY enrolled_at" } ?? "ORDER BY enrolled_at"
        return try await database.read { try await DeviceRows.devices($0, condition) }
    }

    public func deviceSilence(since: Date) async throws -> (inUse: Int, silent: Int) {
        let counts = try await database.read { tx in
            try await tx.query(
                """
                SELECT COUNT(*), COUNT(CASE WHEN COALESCE(d.last_seen_at, d.enrolled_at) < \(since) THEN 1 END)
                FROM devices d JOIN employees e ON e.id = d.user_id
                WHERE d.revoked_at IS NULL AND e.deactivated_at IS NULL
                """
            ).first
        }
        return (Int(try counts?.decode(0, as: Int64.self) ?? 0), Int(try counts?.decode(1, as: Int64.self) ?? 0))
    }

    public func revokeDevice(id: DeviceID, now: Date, audit: LedgerEvent?) async throws -> DeviceRecord? {
        try await database.write { tx in
            let active = try await tx.value(
                "SELECT revoked_at IS NULL FROM devices WHERE id = \(id)\(raw: tx.dialect.forUpdate)", as: Bool.self)
            try await tx.audited(active == true, audit)
            try await tx.execute("UPDATE devices SET revoked_at = COALESCE(revoked_at, \(now)) WHERE id = \(id)")
            return try await DeviceRows.devices(tx, "WHERE id = \(id)").first
        }
    }

    public func saveDeviceState(_ state: DeviceState, device: DeviceID) async throws {
        try await database.write { tx in
            try await tx.execute(
                """
                UPDATE devices SET state = \(state.encoded()), state_observed_at = \(state.observedAt)
                WHERE id = \(device) AND COALESCE(state_observed_at, 0) <= \(state.observedAt)
                """)
        }
    }
}

package enum DeviceRows {
    package static func devices(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [DeviceRecord] {
        try await tx.query(
            """
            SELECT id, user_id, platform, device_name, enrolled_at, last_seen_at, revoked_at, state, app_version
            FROM devices \(condition)
            """
        ).map { row in
            DeviceRecord(
                id: try row[0], userId: try row[1], platform: try row[2], deviceName: try row[3],
                enrolledAt: try row[4], lastSeenAt: try row[5], revokedAt: try row[6],
                state: DeviceState.decoded(try row[7]), appVersion: try row[8])
        }
    }
}
