import AttendanceEngine
import AttendanceModels
import Foundation
import GRDB

extension DeviceStore {
    static func append(_ records: [TelemetryRecord], in db: Database) throws {
        for record in records {
            try db.cachedStatement(sql: "INSERT INTO telemetry (at, kind, site, detail) VALUES (?, ?, ?, ?)")
                .execute(arguments: [record.at.timeIntervalSince1970, record.kind.rawValue, record.site?.description, record.detail])
        }
    }

    /// Audit records, oldest first (the log keeps the newest `limits.telemetryRows`).
    public func telemetry(limit: Int = .max) throws -> [TelemetryRecord] {
        try reading { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM (SELECT * FROM telemetry ORDER BY id DESC LIMIT ?) ORDER BY id",
                                        arguments: [min(limit, Int(Int32.max))])
            return rows.map { row in
                let site: String? = row["site"]
                return TelemetryRecord(at: Date(timeIntervalSince1970: row["at"]), kind: TelemetryRecord.Kind(rawValue: row["kind"]) ?? .upload,
                                       site: site.flatMap(Self.parseSite), detail: row["detail"])
            }
        }
    }

    /// The trace log's lines, oldest first: sample and event rows of the replay format.
    public func traceLines() throws -> [String] {
        try reading { db in try String.fetchAll(db, sql: "SELECT line FROM traceLog ORDER BY id") }
    }

    private static func parseSite(_ text: String) -> SiteBeacon? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let uuid = UUID(uuidString: String(parts[0])), let major = UInt16(parts[1]) else { return nil }
        return SiteBeacon(uuid: uuid, major: major)
    }
}
