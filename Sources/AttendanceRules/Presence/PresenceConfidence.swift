import Foundation

/// How sure the server is that a person shown on site is there (docs/CONSOLE.md, "On site now").
/// A device inside a site makes a heartbeat at most every 15 minutes (`heartbeatIntervalSeconds`,
/// 900) when it has execution time, and holds each up to 30 minutes for other traffic
/// (`heartbeatHoldSeconds`, 1,800), so a session heard from in the last hour is confirmed. Pure.
public enum PresenceConfidence: String, Hashable, Sendable, CaseIterable {
    /// The session was heard from (check-in or heartbeat) within `confirmedWithin`.
    case confirmed
    /// Heartbeats are late, but the phone still talks to the server (it may have left without its
    /// check-out yet, or lost the beacon for a while).
    case unconfirmed
    /// Neither the session nor its phone was heard from within `confirmedWithin`: the phone may be
    /// off, offline or uninstalled. Its events will arrive when it is back (72 h kept on the phone).
    case silent

    /// One heartbeat interval (900 s), the hold (1,800 s) and 15 minutes of slack for a phone
    /// that had no execution time when its heartbeat was due: heartbeats reach the server 18 min
    /// apart at the median and up to ~1 h late (docs/decisions/0023).
    public static let confirmedWithin: TimeInterval = 3_600

    public static func of(sessionLastSeen: Date, deviceLastSeen: Date?, now: Date) -> PresenceConfidence {
        if now.timeIntervalSince(sessionLastSeen) <= confirmedWithin { return .confirmed }
        if let deviceLastSeen, now.timeIntervalSince(deviceLastSeen) <= confirmedWithin { return .unconfirmed }
        return .silent
    }
}
