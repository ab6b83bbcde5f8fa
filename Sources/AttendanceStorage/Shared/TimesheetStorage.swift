import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func timesheetSessions(
        users: [UserID], siteId: SiteID?, window: ClosedRange<Date>
    ) async throws -> [SessionRecord] {
        guard !users.isEmpty else { return [] }
        let site: SQL = siteId.map { " AND site_id = \($0)" } ?? ""
        return try await database.read { tx in
            try await SessionRows.sessions(
                tx,
                """
                SELECT \(raw: SessionRows.columns) FROM sessions WHERE user_id \(anyOf: users.map(\.rawValue))
                    AND check_in_at < \(window.upperBound)
                    AND (check_out_at IS NULL OR check_out_at >= \(window.lowerBound))\(site)
                """)
        }
    }

    public func pendingRequestTargets() async throws -> [PendingRequestTarget] {
        try await database.read { tx in
            try await tx.query(
                """
                SELECT user_id, session_key, site_id, check_in_at FROM correction_requests
                WHERE state = 'pending' ORDER BY created_at, id
                """
            ).map { row in
                PendingRequestTarget(
                    userId: try row[0], sessionKey: try row[1], siteId: try row[2], checkInAt: try row[3])
            }
        }
    }
}
