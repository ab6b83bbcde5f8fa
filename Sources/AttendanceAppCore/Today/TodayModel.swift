import AttendanceEngine
import AttendanceModels
import Foundation

/// The Today screen: where the employee is checked in and since when, time worked today, when
/// the phone last reached the server and what is still waiting, and what stops automatic
/// attendance, if anything.
public struct TodayModel: Hashable, Sendable {
    public struct Presence: Hashable, Sendable, Identifiable {
        public var id: SiteBeacon
        public var site: String
        /// "Checked in since 08:57", "Leaving? Last seen 17:31", "Arriving…".
        public var state: String
        public var manual: Bool
    }

    public var headline: String
    public var presences: [Presence]
    /// "Worked today: 3 h 05 min".
    public var workedToday: String
    /// "Last sync 4 min ago", "Not synced yet", "Last sync failed 2 min ago: …".
    public var lastSync: String
    /// "All events sent", "3 events waiting to be sent".
    public var pending: String
    /// Set when the server refused events for good: they need an administrator's attention.
    public var refused: String?
    /// Why automatic attendance cannot work now (from the permissions), in the employee's words.
    public var warnings: [String]
    public var canCheckIn: Bool
    public var canCheckOut: Bool

    public init(status: DeviceStatus, format: DisplayFormat) {
        let names = status.siteNames
        var presences: [Presence] = []
        for (site, state) in status.presence.sorted(by: { $0.key < $1.key }) {
            let name = format.siteName(site, in: names)
            switch state {
            case .outside: continue
            case .confirming:
                presences.append(Presence(id: site, site: name, state: format.text("Arriving…"), manual: false))
            case .inside(let session):
                presences.append(
                    Presence(
                        id: site, site: name,
                        state: format.text("Checked in since %@", .verbatim(format.time(session.checkInAt))),
                        manual: session.source == .manual))
            case .leaving(let session, _):
                presences.append(
                    Presence(
                        id: site, site: name,
                        state: format.text("Leaving? Last seen %@", .verbatim(format.time(session.lastHeardAt))),
                        manual: session.source == .manual))
            }
        }
        self.presences = presences
        let open = status.openSessions
        if let first = open.first {
            let name = format.siteName(first.site, in: names)
            headline =
                open.count == 1
                ? format.text("Checked in at %@", .verbatim(name))
                : format.text("Checked in at %lld sites", .count(open.count))
        } else {
            headline =
                presences.isEmpty
                ? format.text("Not checked in") : format.text("Arriving at %@…", .verbatim(presences[0].site))
        }
        let sessions = SessionHistory.sessions(events: status.events, open: open)
        let worked = SessionHistory.workedSeconds(
            on: status.now, sessions: sessions, now: status.now, calendar: format.calendar)
        workedToday = format.text("Worked today: %@", .text(DisplayFormat.duration(seconds: worked)))
        lastSync = format.string(Self.lastSync(status.lastUpload, now: status.now))
        let waiting = status.outbox.undelivered
        pending =
            waiting == 0
            ? format.text("All events sent")
            : waiting == 1
                ? format.text("1 event waiting to be sent")
                : format.text("%lld events waiting to be sent", .count(waiting))
        let dead = status.outbox.dead
        refused =
            dead == 0
            ? nil
            : dead == 1
                ? format.text("1 event was refused by the server. Open Diagnostics and tell your administrator.")
                : format.text(
                    "%lld events were refused by the server. Open Diagnostics and tell your administrator.",
                    .count(dead))
        warnings = status.permissions.automaticDetectionBlockerTexts.map {
            let blocker = format.string($0)
            return format.text("%@.", .verbatim(blocker.prefix(1).uppercased() + blocker.dropFirst()))
        }
        canCheckIn = !status.siteBeacons.filter { site in !open.contains { $0.site == site } }.isEmpty
        canCheckOut = !open.isEmpty
    }

    static func lastSync(_ report: UploadReport?, now: Date) -> LocalizedText {
        guard let report else { return LocalizedText("Not synced yet") }
        let when = DisplayFormat.ago(report.at, now: now)
        if let error = report.error { return LocalizedText("Last sync failed %@: %@", .text(when), .verbatim(error)) }
        return LocalizedText("Last sync %@", .text(when))
    }
}
