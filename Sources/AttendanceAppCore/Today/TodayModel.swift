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
            let name = DisplayFormat.siteName(site, in: names)
            switch state {
            case .outside: continue
            case .confirming:
                presences.append(Presence(id: site, site: name, state: "Arriving…", manual: false))
            case .inside(let session):
                presences.append(Presence(id: site, site: name, state: "Checked in since \(format.time(session.checkInAt))",
                                          manual: session.source == .manual))
            case .leaving(let session, _):
                presences.append(Presence(id: site, site: name, state: "Leaving? Last seen \(format.time(session.lastHeardAt))",
                                          manual: session.source == .manual))
            }
        }
        self.presences = presences
        let open = status.openSessions
        if let first = open.first {
            let name = DisplayFormat.siteName(first.site, in: names)
            headline = open.count == 1 ? "Checked in at \(name)" : "Checked in at \(open.count) sites"
        } else {
            headline = presences.isEmpty ? "Not checked in" : "Arriving at \(presences[0].site)…"
        }
        let sessions = SessionHistory.sessions(events: status.events, open: open)
        let worked = SessionHistory.workedSeconds(on: status.now, sessions: sessions, now: status.now, calendar: format.calendar)
        workedToday = "Worked today: " + DisplayFormat.duration(seconds: worked)
        lastSync = Self.lastSync(status.lastUpload, now: status.now)
        let waiting = status.outbox.undelivered
        pending = waiting == 0 ? "All events sent" : waiting == 1 ? "1 event waiting to be sent" : "\(waiting) events waiting to be sent"
        refused = status.outbox.dead == 0 ? nil
            : "\(status.outbox.dead) event\(status.outbox.dead == 1 ? " was" : "s were") refused by the server. Open Diagnostics and tell your administrator."
        warnings = status.permissions.automaticDetectionBlockers.map { $0.prefix(1).uppercased() + $0.dropFirst() + "." }
        canCheckIn = !status.siteBeacons.filter { site in !open.contains { $0.site == site } }.isEmpty
        canCheckOut = !open.isEmpty
    }

    static func lastSync(_ report: UploadReport?, now: Date) -> String {
        guard let report else { return "Not synced yet" }
        let when = DisplayFormat.ago(report.at, now: now)
        if let error = report.error { return "Last sync failed \(when): \(error)" }
        return "Last sync \(when)"
    }
}
