import AttendanceModels
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

/// The admin session list as an RFC 4180 CSV, every session the filter matches, oldest check-in
/// first, read 500 at a time as the response is sent.
public struct SessionsCSV: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>

    let repository: any ServerRepository
    let filter: SessionFilter

    public init(repository: any ServerRepository, filter: SessionFilter) {
        self.repository = repository
        self.filter = filter
    }

    public func makeAsyncIterator() -> Iterator { Iterator(repository: repository, filter: filter) }

    public struct Iterator: AsyncIteratorProtocol {
        let repository: any ServerRepository
        let filter: SessionFilter
        var names: [UserID: String]?
        var zones: [SiteID: TimeZone] = [:]
        var cursor: SessionCursor?
        var finished = false

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
