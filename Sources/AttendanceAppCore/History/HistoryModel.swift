import AttendanceEngine
import AttendanceModels
import Foundation

/// The History screen: the phone's sessions grouped by local day, newest day first, each day
/// with its total. A night shift appears on each day it covers, with that day's part counted.
public struct HistoryModel: Sendable {
    public struct Row: Hashable, Sendable, Identifiable {
        public var id: String
        public var site: String
        /// "08:57 – 17:31", "22:00 – (open)", with "(from Mon 23 Nov)" when it began the day before.
        public var times: String
        public var duration: String
        /// "manual", "waiting to be sent", "refused by the server"; empty when nothing to say.
        public var notes: [String]
    }

    public struct Day: Hashable, Sendable, Identifiable {
        public var id: Date
        public var title: String
        public var total: String
        public var rows: [Row]
    }

    public var days: [Day]
    public var footnote: String

    public init(status: DeviceStatus, format: DisplayFormat, retentionDays: Int = 7) {
        let calendar = format.calendar
        let sessions = SessionHistory.sessions(events: status.events, open: status.openSessions)
        let names = status.siteNames
        var dayStarts = Set<Date>()
        for session in sessions {
            var day = calendar.startOfDay(for: session.checkInAt)
            let last = calendar.startOfDay(for: session.checkOutAt ?? status.now)
            while day <= last {
                dayStarts.insert(day)
                guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
                day = next
            }
        }
        days = dayStarts.sorted(by: >).map { start in
            let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
            let inDay = sessions.filter {
                $0.seconds(from: start, to: end, now: status.now) > 0 || (start...end).contains($0.checkInAt)
            }
            let rows = inDay.sorted { $0.checkInAt < $1.checkInAt }.map { session in
                Self.row(session, dayStart: start, names: names, format: format, now: status.now)
            }
            let total = inDay.reduce(0) { $0 + $1.seconds(from: start, to: end, now: status.now) }
            return Day(id: start, title: format.day(start), total: format.duration(seconds: total), rows: rows)
        }
        footnote = format.text(
            "Sessions recorded on this phone over the last %lld days. Your employer's records are on the server.",
            .count(retentionDays))
    }

    static func row(
        _ session: PhoneSession, dayStart: Date, names: [SiteBeacon: String], format: DisplayFormat, now: Date
    ) -> Row {
        var times = format.text(
            "%@ – %@", .verbatim(format.time(session.checkInAt)),
            session.checkOutAt.map { LocalizedText.Value.verbatim(format.time($0)) } ?? .text(LocalizedText("now")))
        if session.checkInAt < dayStart {
            times = format.text("%@ (from %@)", .verbatim(times), .verbatim(format.day(session.checkInAt)))
        }
        var notes: [String] = []
        if session.manual { notes.append(format.text("manual")) }
        switch session.delivery {
        case .delivered: break
        case .pending: notes.append(format.text("waiting to be sent"))
        case .refused: notes.append(format.text("refused by the server"))
        }
        return Row(
            id: session.id.rawValue + "@" + String(Int(dayStart.timeIntervalSince1970)),
            site: format.siteName(session.site, in: names), times: times,
            duration: format.duration(seconds: session.seconds(until: now)), notes: notes)
    }
}
