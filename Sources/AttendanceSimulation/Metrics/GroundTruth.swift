import AttendanceModels
import Foundation

/// A stretch of time a person truly spent inside a site's zone. The simulator knows every true
/// position; this is what the recorded sessions are scored against (docs/ARCHITECTURE.md, "How it is evaluated"). Times are
/// seconds since the simulation's start.
public struct TruePresence: Hashable, Sendable, Codable {
    public var employee: UserID
    public var site: SiteID
    public var start: Double
    public var end: Double

    public init(employee: UserID, site: SiteID, start: Double, end: Double) {
        self.employee = employee
        self.site = site
        self.start = start
        self.end = end
    }

    public var duration: Double { end - start }
}

/// A session as the server recorded it, with the moments its events became durable on the
/// device (the decision latency is measured to those, not to the event's own timestamp).
public struct RecordedSession: Hashable, Sendable, Codable {
    public var employee: UserID
    public var site: SiteID
    public var checkIn: Double
    /// nil: still open when the simulation ended.
    public var checkOut: Double?
    /// When the check-in was committed to the device's outbox.
    public var checkInDecidedAt: Double
    /// The rule that checked in (`early`, `strongMedian`, `walking`, `dwell`, `usualDesk`, `manual`), when the
    /// device's outbox still knows it (the details file only; scoring does not use it).
    public var rule: String?

    public init(employee: UserID, site: SiteID, checkIn: Double, checkOut: Double?, checkInDecidedAt: Double, rule: String? = nil) {
        self.employee = employee
        self.site = site
        self.checkIn = checkIn
        self.checkOut = checkOut
        self.checkInDecidedAt = checkInDecidedAt
        self.rule = rule
    }

    func end(horizon: Double) -> Double { checkOut ?? max(horizon, checkIn) }
}
