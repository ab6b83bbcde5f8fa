import AttendanceModels
import Foundation

/// Where an outbox row is in its life.
public enum OutboxState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Waiting for its next attempt (`nextAttemptAt`).
    case pending
    /// Handed to the uploader; back to `pending` if the app dies before the answer.
    case inFlight
    /// The server accepted it (or already had it). Compacted after the retention period.
    case delivered
    /// Refused for good (a 4xx other than 408/409/429). Kept, visible, never deleted silently.
    case dead
}

/// One durable attendance event and its delivery bookkeeping.
public struct OutboxEntry: Hashable, Sendable {
    public var id: Int64
    public var event: AttendanceEvent
    public var idempotencyKey: String
    public var state: OutboxState
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    /// Whether the last failure was the network's (reset when the network comes back) rather
    /// than the server's answer (whose `Retry-After` is honoured).
    public var lastErrorWasTransport: Bool
    public var enqueuedAt: Date
    public var deliveredAt: Date?
    /// Since when the server has answered 409 (its key still being processed) to every attempt;
    /// nil once any other answer came.
    public var serverBusySince: Date?

    /// How long a 409 may last before Diagnostics reports the event as stuck on the server.
    public static let serverBusyReportSeconds: Double = 600

    /// Whether the server has answered 409 for longer than `serverBusyReportSeconds`.
    public func isStuckOnServer(now: Date) -> Bool {
        guard let since = serverBusySince else { return false }
        return now.timeIntervalSince(since) >= Self.serverBusyReportSeconds
    }
}

extension OutboxEntry {
    /// A new, pending entry for `event` (the store makes these; an app without an outbox, such
    /// as the simulator's baselines, hands them to an uploader directly).
    public init(id: Int64, event: AttendanceEvent, enqueuedAt: Date) {
        self.id = id
        self.event = event
        idempotencyKey = event.idempotencyKey
        state = .pending
        attempts = 0
        nextAttemptAt = enqueuedAt
        lastError = nil
        lastErrorWasTransport = false
        self.enqueuedAt = enqueuedAt
        deliveredAt = nil
        serverBusySince = nil
    }
}

public struct OutboxCounts: Hashable, Sendable, Codable {
    public var pending: Int
    public var inFlight: Int
    public var delivered: Int
    public var dead: Int

    public init(pending: Int = 0, inFlight: Int = 0, delivered: Int = 0, dead: Int = 0) {
        self.pending = pending
        self.inFlight = inFlight
        self.delivered = delivered
        self.dead = dead
    }

    /// Events not yet accepted by the server (what the Today screen calls "pending").
    public var undelivered: Int { pending + inFlight }
}
