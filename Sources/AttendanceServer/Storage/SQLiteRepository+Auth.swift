import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository {










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

}
