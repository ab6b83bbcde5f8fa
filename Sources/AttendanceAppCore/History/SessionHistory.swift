import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// Sessions as this phone recorded them: its outbox's check-ins and check-outs paired by session
/// key, plus the engine's open sessions. Works offline; covers what the phone still keeps
/// (undelivered events always, delivered ones for the store's retention, 7 days by default).
public struct PhoneSession: Hashable, Sendable, Identifiable {
    public enum Delivery: String, Hashable, Sendable {
        /// The server has every event of the session.
        case delivered
        /// At least one event is still waiting to be sent.
        case pending
        /// The server refused an event for good (see Diagnostics).
        case refused
    }

    public var id: SessionKey
    public var site: SiteBeacon
    public var checkInAt: Date
    /// `nil` while the session is open.
    public var checkOutAt: Date?
    /// Whether the check-in or the check-out was made by hand.
    public var manual: Bool
    public var delivery: Delivery
    /// The check-out's reason (`softExit`, `regionExit`, the employee's words for a manual one).
    public var checkOutReason: String?

    public init(id: SessionKey, site: SiteBeacon, checkInAt: Date, checkOutAt: Date?, manual: Bool, delivery: Delivery,
                checkOutReason: String? = nil) {
        self.id = id
        self.site = site
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.manual = manual
        self.delivery = delivery
        self.checkOutReason = checkOutReason
    }

    public func seconds(until now: Date) -> Double { max(0, (checkOutAt ?? now).timeIntervalSince(checkInAt)) }

    /// The part of the session inside [start, end).
    public func seconds(from start: Date, to end: Date, now: Date) -> Double {
        let from = max(checkInAt, start)
        let to = min(checkOutAt ?? now, end)
        return max(0, to.timeIntervalSince(from))
    }
}

public enum SessionHistory {
    /// Every session the phone knows, newest first.
    public static func sessions(events: [OutboxEntry], open: [PresenceSession]) -> [PhoneSession] {
        var byKey: [SessionKey: PhoneSession] = [:]
        for entry in events.sorted(by: { ($0.event.timestamp, $0.id) < ($1.event.timestamp, $1.id) }) {
            let event = entry.event
            var record = byKey[event.sessionKey] ?? PhoneSession(id: event.sessionKey, site: event.site, checkInAt: event.timestamp, checkOutAt: nil,
                                                                 manual: false, delivery: .delivered, checkOutReason: nil)
            switch event.kind {
            case .checkIn: record.checkInAt = event.timestamp
            case .checkOut:
                record.checkOutAt = event.timestamp
                record.checkOutReason = event.reason
            case .heartbeat: break
            }
            if event.kind != .heartbeat, event.source == .manual { record.manual = true }
            record.delivery = worse(record.delivery, delivery(of: entry.state))
            byKey[event.sessionKey] = record
        }
        for session in open {
            var record = byKey[session.key] ?? PhoneSession(id: session.key, site: session.site, checkInAt: session.checkInAt, checkOutAt: nil,
                                                            manual: session.source == .manual, delivery: .pending, checkOutReason: nil)
            // The engine may hold a session whose check-out is not decided yet (leaving): still open.
            if record.checkOutAt.map({ $0 < session.lastHeardAt }) ?? false { record.checkOutAt = nil }
            byKey[session.key] = record
        }
        // A session whose check-in was compacted away but whose check-out is kept has no true start;
        // it is dropped rather than shown with a wrong length.
        let known = Set(events.filter { $0.event.kind == .checkIn }.map(\.event.sessionKey)).union(open.map(\.key))
        return byKey.values.filter { known.contains($0.id) }.sorted { $0.checkInAt > $1.checkInAt }
    }

    private static func delivery(of state: OutboxState) -> PhoneSession.Delivery {
        switch state {
        case .delivered: .delivered
        case .pending, .inFlight: .pending
        case .dead: .refused
        }
    }

    private static func worse(_ a: PhoneSession.Delivery, _ b: PhoneSession.Delivery) -> PhoneSession.Delivery {
        let rank: [PhoneSession.Delivery: Int] = [.delivered: 0, .pending: 1, .refused: 2]
        return rank[a, default: 0] >= rank[b, default: 0] ? a : b
    }

    /// Seconds worked in the local day containing `day`, night shifts split at midnight.
    public static func workedSeconds(on day: Date, sessions: [PhoneSession], now: Date, calendar: Calendar) -> Double {
        let start = calendar.startOfDay(for: day)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return sessions.reduce(0) { $0 + $1.seconds(from: start, to: end, now: now) }
    }
}
