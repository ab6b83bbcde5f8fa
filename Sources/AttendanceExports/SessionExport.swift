import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// The session export's columns, version 1 (docs/TIMESHEETS.md, "Exports"): one line per session,
/// times by the site's clock with its offset and in UTC.
public enum SessionColumns {
    public static let version = "sessions-v1"

    public static let names = [
        "sessionKey", "employeeId", "employeeName", "siteId", "timeZone", "checkInLocal", "checkInUTC",
        "checkOutLocal", "checkOutUTC", "lastSeenUTC", "workedMinutes", "status", "source", "checkOutSource",
        "checkOutReason", "corrected", "voidReason", "deviceId", "appVersion", "rule", "clockSkewSeconds",
    ]

    public static func cells(_ session: SessionRecord, employeeName: String, timeZone: TimeZone?) -> [String] {
        func local(_ instant: Date?) -> String {
            guard let instant, let timeZone else { return "" }
            return LocalTimestamp.format(instant, offsetSeconds: timeZone.secondsFromGMT(for: instant))
        }
        let worked = session.checkOutAt.map { String(minutes($0.timeIntervalSince(session.checkInAt))) } ?? ""
        return [
            TimesheetColumns.inert(session.sessionKey.rawValue), TimesheetColumns.inert(session.userId.rawValue),
            TimesheetColumns.inert(employeeName), TimesheetColumns.inert(session.siteId.rawValue),
            timeZone?.identifier ?? "", local(session.checkInAt),
            RFC3339.format(session.checkInAt), local(session.checkOutAt), session.checkOutAt.map(RFC3339.format) ?? "",
            RFC3339.format(session.lastSeenAt), session.voidedAt == nil ? worked : "", session.status,
            session.source.rawValue, session.evidence.checkOutSource?.rawValue ?? "",
            TimesheetColumns.inert(session.checkOutReason ?? ""), session.corrected ? "true" : "false",
            TimesheetColumns.inert(session.voidReason ?? ""), TimesheetColumns.inert(session.deviceId?.rawValue ?? ""),
            TimesheetColumns.inert(session.evidence.appVersion ?? ""),
            TimesheetColumns.inert(session.evidence.rule ?? ""),
            session.evidence.clockSkewSeconds.map { String(format: "%.3f", $0) } ?? "",
        ]
    }
}

/// What the session export reads and writes: the repository protocols it needs, no more.
public typealias SessionExportStorage = AttendanceRepository & AdminRepository & LedgerRepository

/// The admin session list as an RFC 4180 CSV, every session the filter matches, oldest check-in
/// first, read 500 at a time as the response is sent.
public struct SessionsCSV: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>

    package let repository: any SessionExportStorage
    package let filter: SessionFilter

    public init(repository: any SessionExportStorage, filter: SessionFilter) {
        self.repository = repository
        self.filter = filter
    }

    public func makeAsyncIterator() -> Iterator { Iterator(repository: repository, filter: filter) }

    public struct Iterator: AsyncIteratorProtocol {
        package let repository: any SessionExportStorage
        package let filter: SessionFilter
        package var names: [UserID: String]?
        package var zones: [SiteID: TimeZone] = [:]
        package var cursor: SessionCursor?
        package var finished = false

        public mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !finished else { return nil }
            guard let names else {
                names = Dictionary(
                    try await repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                for site in try await repository.sites() { zones[site.id] = TimeZone(identifier: site.timeZone) }
                return ArraySlice(CSVText.record(SessionColumns.names).utf8)
            }
            let page = try await repository.sessions(filter, after: cursor, limit: 500)
            guard let last = page.last else {
                finished = true
                return nil
            }
            cursor = SessionCursor(checkInAt: last.checkInAt, sessionKey: last.sessionKey)
            var text = ""
            for session in page {
                text += CSVText.record(
                    SessionColumns.cells(
                        session, employeeName: names[session.userId] ?? "", timeZone: zones[session.siteId]))
            }
            return ArraySlice(text.utf8)
        }
    }
}
