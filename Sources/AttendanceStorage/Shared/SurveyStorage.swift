import AttendanceModels
import Foundation

/// Site surveys: one row each, the spots as JSON (what the app measured, kept as it came).
extension SQLStorage {
    public func storeSurvey(_ survey: StoredSurvey) async throws -> StoredSurvey {
        let spots = String(decoding: try SurveyRows.encoder.encode(survey.survey.spots), as: UTF8.self)
        let inserted = try await database.write { tx in
            try await tx.value(
                """
                INSERT INTO site_surveys (site_id, device_id, user_id, received_at, spots)
                VALUES (\(survey.siteId), \(survey.deviceId), \(survey.userId), \(survey.receivedAt), \(spots))
                RETURNING id
                """, as: Int64.self)
        }
        guard let id = inserted else {
            throw RepositoryError(kind: .conflict, detail: "the survey of site \(survey.siteId) was not written")
        }
        var stored = survey
        stored.id = id
        return stored
    }

    public func surveys(siteId: SiteID, limit: Int) async throws -> [StoredSurvey] {
        let rows = try await database.read { tx in
            try await tx.query(
                """
                SELECT s.id, s.site_id, s.device_id, s.user_id, s.received_at, s.spots, t.beacon_uuid, t.major
                FROM site_surveys s JOIN sites t ON t.id = s.site_id
                WHERE s.site_id = \(siteId) ORDER BY s.id DESC LIMIT \(limit)
                """)
        }
        return try rows.map { row in
            let spots = try SurveyRows.decoder.decode(
                [SurveySpot].self, from: Data(try row.decode(5, as: String.self).utf8))
            let uuid = try row.decode(6, as: String.self)
            guard let beaconUUID = UUID(uuidString: uuid) else {
                throw RepositoryError(
                    kind: .notFound, detail: "site \(siteId) has no valid beacon UUID ('\(uuid)')")
            }
            let site = SiteBeacon(uuid: beaconUUID, major: UInt16(try row.decode(7, as: Int.self)))
            return StoredSurvey(
                id: try row[0], siteId: try row[1], deviceId: try row[2], userId: try row[3], receivedAt: try row[4],
                survey: SiteSurvey(site: site, spots: spots))
        }
    }
}

enum SurveyRows {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
