import AttendanceModels
import AttendanceRules
import Foundation

/// A session row, read the one way both databases return it.
package enum SessionRows {
    /// The columns a session's write sets, in this order (`SessionWrites.write`, PostgreSQL's
    /// prepared upsert).
    package static let writeNames = [
        "session_key", "user_id", "site_id", "device_id", "check_in_at", "check_out_at", "check_out_reason",
        "last_seen_at", "source", "created_at", "check_in_reason", "check_out_source", "app_version", "evidence_rule",
        "evidence_samples", "evidence_median_rssi", "evidence_stdev_db", "evidence_walking", "clock_skew_seconds",
        "corrected", "voided_at", "void_reason",
    ]

    /// What a write of a known session replaces: every column but its key and `created_at`.
    package static let upsertSet = writeNames.filter { $0 != "session_key" && $0 != "created_at" }
        .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// The columns every session query selects, in this order: `session(_:at:)` reads them by
    /// position.
    package static let names = writeNames.filter { $0 != "created_at" }
    package static let columns = names.joined(separator: ", ")

    /// The columns prefixed with a table's alias (`s.session_key, …`), for joins.
    package static func columns(alias: String) -> String { names.map { "\(alias).\($0)" }.joined(separator: ", ") }

    /// The session in `columns` from position `first` of `row`, or nil when its key is NULL (a
    /// LEFT JOIN that found none).
    package static func session(_ row: SQLRow, at first: Int = 0) throws -> SessionRecord? {
        guard let key = try row.decode(first, as: String?.self) else { return nil }
        func column<Value: SQLDecodable>(_ offset: Int) throws -> Value { try row.decode(first + offset) }
        let evidence = SessionEvidence(
            checkInReason: try column(9),
            checkOutSource: try StoredValue.decode(
                try column(10) as String?, as: EventSource.self, table: "sessions", row: key,
                column: "check_out_source"),
            appVersion: try column(11), rule: try column(12), sampleCount: try column(13),
            medianRSSI: try column(14), stdevDB: try column(15), walking: try column(16),
            clockSkewSeconds: try column(17))
        return SessionRecord(
            sessionKey: SessionKey(key), userId: try column(1), siteId: try column(2), deviceId: try column(3),
            checkInAt: try column(4), checkOutAt: try column(5), checkOutReason: try column(6),
            lastSeenAt: try column(7),
            source: try StoredValue.decode(
                try column(8) as String, as: EventSource.self, table: "sessions", row: key, column: "source"),
            evidence: evidence, corrected: try column(18), voidedAt: try column(19), voidReason: try column(20))
    }

    package static func sessions(_ tx: any SQLTransaction, _ sql: SQL) async throws -> [SessionRecord] {
        try await tx.query(sql) { try session($0) }
    }
}
