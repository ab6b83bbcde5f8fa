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
            var notes: [LocalizedText] = []
            if session.status == "voided" { notes.append(LocalizedText("voided")) }
            if session.corrected, session.status != "voided" {
                notes.append(LocalizedText("corrected by your employer"))
            }
            if session.manual { notes.append(LocalizedText("manual")) }
            if let mine = phoneByKey[session.id] {
                if mine.checkInAt != session.checkInAt || mine.checkOutAt != session.checkOutAt {
                    notes.append(LocalizedText("differs from this phone"))
                }
            } else {
                notes.append(LocalizedText("not on this phone"))
            }
            if let request = latestRequest[session.id] { notes.append(Self.describe(request)) }
            let end = session.checkOutAt ?? now
            return Row(
                id: session.id, site: siteNames[session.siteID] ?? session.siteID,
                times: format.text(
                    "%@ – %@", .verbatim(format.dayAndTime(session.checkInAt)),
                    session.checkOutAt.map { LocalizedText.Value.verbatim(format.time($0)) }
                        ?? .text(LocalizedText("open"))),
                duration: session.status == "voided"
                    ? "–" : format.duration(seconds: max(0, end.timeIntervalSince(session.checkInAt))),
                notes: notes.map(format.string), correctable: session.status == "voided" ? nil : session)
        }
        let known = Set(sessions.map(\.id))
        let pending = requests.filter { request in
            request.state == "pending" && (request.sessionKey.map { !known.contains($0) } ?? true)
        }.count
        footnote =
            pending == 0
            ? format.text("Your employer's record, as the server keeps it.")
            : pending == 1
                ? format.text(
                    "Your employer's record, as the server keeps it. 1 of your requests for a missed "
                        + "session is pending.")
                : format.text(
                    "Your employer's record, as the server keeps it. %lld of your requests for a missed session are "
                        + "pending.", .count(pending))
    }

    static func describe(_ request: ServerRequest) -> LocalizedText {
        switch request.state {
        case "pending": LocalizedText("request pending")
        case "approved": LocalizedText("request approved")
        default:
            request.comment.map { LocalizedText("request rejected: %@", .verbatim($0)) }
                ?? LocalizedText("request rejected")
        }
    }
}
