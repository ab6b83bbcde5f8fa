import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository {
    // MARK: - Auth





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





    /// The one boolean `query` selects (false when it finds no row).
    func flag(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Bool {
        for try await value in try await connection.query(query, logger: logger).decode(Bool.self) { return value }
        return false
    }

    // MARK: - Admin










}
