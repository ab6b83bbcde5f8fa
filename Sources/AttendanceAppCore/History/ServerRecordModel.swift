import AttendanceModels
import AttendanceSync
import Foundation

/// History's second half: the employer's record of this employee (the server's sessions,
/// corrections included) beside what the phone recorded, with each request and its decision.
/// Newest first. A session the phone recorded differently, or HR corrected, says so.
public struct ServerRecordModel: Hashable, Sendable {
    public struct Row: Hashable, Sendable, Identifiable {
        public var id: SessionKey
        public var site: String
        public var times: String
        public var duration: String
        /// "corrected by your employer", "voided", "differs from this phone", "not on this phone",
        /// "request pending", "request rejected: …".
        public var notes: [String]
        /// The session the "Request a correction" sheet starts from (nil for a voided one).
        public var correctable: ServerSession?
    }

    public var rows: [Row]
    public var footnote: String

    public init(
        sessions: [ServerSession], requests: [ServerRequest], phone: [PhoneSession], siteNames: [String: String],
        format: DisplayFormat, now: Date
    ) {
        let phoneByKey = Dictionary(phone.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let latestRequest = Dictionary(
            requests.compactMap { request in request.sessionKey.map { ($0, request) } },
            uniquingKeysWith: { first, second in first.createdAt >= second.createdAt ? first : second })
        rows = sessions.sorted { $0.checkInAt > $1.checkInAt }.map { session in
            var notes: [String] = []
            if session.status == "voided" { notes.append("voided") }
            if session.corrected, session.status != "voided" { notes.append("corrected by your employer") }
            if session.manual { notes.append("manual") }
            if let mine = phoneByKey[session.id] {
                if mine.checkInAt != session.checkInAt || mine.checkOutAt != session.checkOutAt {
                    notes.append("differs from this phone")
                }
            } else {
                notes.append("not on this phone")
            }
            if let request = latestRequest[session.id] { notes.append(Self.describe(request)) }
            let end = session.checkOutAt ?? now
            return Row(
                id: session.id, site: siteNames[session.siteID] ?? session.siteID,
                times: format.dayAndTime(session.checkInAt) + " – "
                    + (session.checkOutAt.map(format.time) ?? "open"),
                duration: session.status == "voided"
                    ? "–" : DisplayFormat.duration(seconds: max(0, end.timeIntervalSince(session.checkInAt))),
                notes: notes, correctable: session.status == "voided" ? nil : session)
        }
        let known = Set(sessions.map(\.id))
        let pending = requests.filter { request in
            request.state == "pending" && (request.sessionKey.map { !known.contains($0) } ?? true)
        }.count
        footnote =
            "Your employer's record, as the server keeps it."
            + (pending > 0
                ? " \(pending) of your requests for a missed session \(pending == 1 ? "is" : "are") pending." : "")
    }

    static func describe(_ request: ServerRequest) -> String {
        switch request.state {
        case "pending": "request pending"
        case "approved": "request approved"
        default: "request rejected" + (request.comment.map { ": \($0)" } ?? "")
        }
    }
}
