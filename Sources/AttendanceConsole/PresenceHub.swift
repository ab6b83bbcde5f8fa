import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import ServiceLifecycle
import Synchronization

/// The live half of On site now: told about every committed session change (`SessionObserver`),
/// it sends each open page whose viewer may see that site a server-sent event, `presence`, with
/// the row to show or remove. Changes are sent at once when the hub is idle; under load, those
/// that arrive within `flushInterval` of the last send go together in one write per page, so 200
/// open pages cost 200 writes per interval, not per check-in. One lookup of the employee's name
/// per change (cached for a minute, as is the site's zone), and none while no page is open. A
/// page renders the number of the latest change; its stream first replays what changed since
/// (the last 5,000 changes are kept), so nothing that happened between the render and the
/// connection is missed.
public final class PresenceHub: SessionObserver, Service {
    /// Who a page's stream is for: the sites it may see, and the sign-in it belongs to.
    struct Viewer: Sendable {
        var scope: SiteScope
        var accountId: AccountID
        var expiresAt: Date
    }

    private struct Subscriber {
        var viewer: Viewer
        var continuation: AsyncStream<String>.Continuation
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        /// Pages that asked to join, with the last change their page showed; the send loop
        /// replays what they missed, then adds them (so nothing overtakes the replay).
        var joining: [UInt64: (subscriber: Subscriber, after: UInt64)] = [:]
        /// The latest changes, numbered; a page renders the number it has seen.
        var recent: [(sequence: UInt64, session: SessionRecord)] = []
        var sequence: UInt64 = 0
        var pending: [SessionRecord] = []
        /// Each session as last sent: the same state told again (this server's ingest, then the
        /// follower reading the same change from the ledger) is not sent twice.
        var lastSent: [SessionKey: SessionRecord] = [:]
    }

    /// How many sessions' last sent states are kept (then forgotten all at once).
    static let lastSentLimit = 100_000

    /// How many changes are kept for pages that connect after their render.
    static let replayLimit = 5_000

    private let repository: any AttendanceRepository
    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)
    private let names = Mutex<[UserID: (name: String, at: Date)]>([:])
    private let zones = Mutex<[SiteID: (zone: String, at: Date)]>([:])
    private let ticks: AsyncStream<Void>
    private let tick: AsyncStream<Void>.Continuation
    private let keepAlive: Duration
    private let flushInterval: Duration
    private let environment: ServerEnvironment

    public init(
        repository: any AttendanceRepository, keepAlive: Duration = .seconds(15),
        flushInterval: Duration = .milliseconds(100),
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.keepAlive = keepAlive
        self.flushInterval = flushInterval
        self.environment = environment
        (ticks, tick) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count + $0.joining.count } }

    /// The number of the latest change: a page renders it, and its stream starts after it.
    public var sequence: UInt64 { state.withLock { $0.sequence } }

    /// Costs an append when no page is open (the names are looked up only for open pages).
    public func sessionsChanged(_ sessions: [SessionRecord]) {
        state.withLock { $0.pending += sessions }
        tick.yield()
    }

    /// A page's stream of events, each a complete `text/event-stream` message: first what changed
    /// after `after` (or a `reload` event when that is older than the changes kept), then live.
    func subscribe(_ viewer: Viewer, after: UInt64) -> (id: UInt64, events: AsyncStream<String>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (events, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        state.withLock { $0.joining[id] = (Subscriber(viewer: viewer, continuation: continuation), after) }
        tick.yield()
        return (id, events)
    }

    /// At most this many live pages per account (a browser keeps one per open tab): more is a
    /// script or a leak, and each holds a connection.
    static let streamsPerAccount = 20

    /// The account's open streams (live and joining).
    func streams(of accountId: AccountID) -> Int {
        state.withLock { current in
            current.subscribers.values.filter { $0.viewer.accountId == accountId }.count
                + current.joining.values.filter { $0.subscriber.viewer.accountId == accountId }.count
        }
    }

    func unsubscribe(_ id: UInt64) {
        let removed = state.withLock { current in
            current.subscribers.removeValue(forKey: id) ?? current.joining.removeValue(forKey: id)?.subscriber
        }
        removed?.continuation.finish()
    }

    /// Ends the streams of an account (signed out, deactivated, its role, sites or password
    /// changed): its pages reconnect, and only a sign-in still valid gets a stream again.
    public func disconnect(accountId: AccountID) {
        let ids = state.withLock { current in
            (current.subscribers.filter { $0.value.viewer.accountId == accountId }.map(\.key)
                + current.joining.filter { $0.value.subscriber.viewer.accountId == accountId }.map(\.key))
        }
        for id in ids { unsubscribe(id) }
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await _ in ticks.cancelOnGracefulShutdown() {
                    await flush()
                    try? await Task.sleep(for: flushInterval)
                }
            }
            group.addTask { [self] in
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    try? await Task.sleep(for: keepAlive)
                    dropExpired()
                    send([(nil, ": keep-alive\n\n")])
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        let all = state.withLock { current in
            defer {
                current.subscribers.removeAll()
                current.joining.removeAll()
            }
            return Array(current.subscribers.values) + current.joining.values.map(\.subscriber)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }

    /// The one sender: numbers the changes, sends them to the open pages, then replays to the
    /// pages that joined what they missed and adds them.
    private func flush() async {
        let (batch, hasSubscribers) = state.withLock { current in
            defer { current.pending.removeAll(keepingCapacity: true) }
            if current.lastSent.count > Self.lastSentLimit { current.lastSent.removeAll(keepingCapacity: true) }
            var fresh: [SessionRecord] = []
            for session in current.pending where current.lastSent[session.sessionKey] != session {
                current.lastSent[session.sessionKey] = session
                fresh.append(session)
                current.sequence += 1
                current.recent.append((current.sequence, session))
            }
            if current.recent.count > Self.replayLimit {
                current.recent.removeFirst(current.recent.count - Self.replayLimit)
            }
            return (fresh, !current.subscribers.isEmpty)
        }
        if hasSubscribers, !batch.isEmpty {
            var events: [(site: SiteID?, message: String)] = []
            for session in batch { events.append((session.siteId, await event(session))) }
            send(events)
        }
        let (joining, recent) = state.withLock { current in (current.joining, current.recent) }
        for (id, entry) in joining {
            let oldest = recent.first?.sequence ?? (sequence + 1)
            var text = ""
            if entry.after + 1 < oldest, entry.after < sequence {
                text = "event: reload\ndata: {}\n\n"
            } else {
                for change in recent
                where change.sequence > entry.after
                    && entry.subscriber.viewer.scope.permits(change.session.siteId)
                {
                    text += await event(change.session)
                }
            }
            let added = state.withLock { current -> Bool in
                guard current.joining.removeValue(forKey: id) != nil else { return false }
                current.subscribers[id] = entry.subscriber
                return true
            }
            if added, !text.isEmpty { entry.subscriber.continuation.yield(text) }
        }
    }

    /// Ends the streams whose sign-in has expired (at every keep-alive).
    func dropExpired() {
        let now = environment.now()
        let expired = state.withLock { current in
            current.subscribers.filter { $0.value.viewer.expiresAt <= now }.map(\.key)
                + current.joining.filter { $0.value.subscriber.viewer.expiresAt <= now }.map(\.key)
        }
        for id in expired { unsubscribe(id) }
    }

    /// The `presence` event of one change.
    private func event(_ session: SessionRecord) async -> String {
        let open = session.checkOutAt == nil && session.voidedAt == nil
        var row: [String: String] = [
            "site": session.siteId.rawValue, "session": session.sessionKey.rawValue, "user": session.userId.rawValue,
            "state": open ? "in" : "out",
        ]
        if open {
            let zone = await zone(of: session.siteId)
            row["name"] = await name(of: session.userId)
            // One message for every page, whatever its language: console.js writes the day in the page's.
            row["since"] = LocalTime.plain(session.checkInAt, zone: zone, in: .english)
            row["confidence"] =
                PresenceConfidence.of(
                    sessionLastSeen: session.lastSeenAt, deviceLastSeen: nil, now: environment.now()
                ).rawValue
        }
        let json = (try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])) ?? Data("{}".utf8)
        return "event: presence\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
    }

    /// Each page gets the events of its sites in one message. A page that can't keep up (1,000
    /// sends waiting) is disconnected rather than left stale: its browser reconnects and reloads
    /// the page (console.js).
    private func send(_ events: [(site: SiteID?, message: String)]) {
        guard !events.isEmpty else { return }
        let targets = state.withLock { current in current.subscribers.map { ($0.key, $0.value) } }
        for (id, subscriber) in targets {
            let text = events.filter { $0.site.map(subscriber.viewer.scope.permits) ?? true }.map(\.message).joined()
            guard !text.isEmpty else { continue }
            if case .dropped = subscriber.continuation.yield(text) { unsubscribe(id) }
        }
    }

    private func name(of user: UserID) async -> String {
        let now = environment.now()
        if let cached = names.withLock({ $0[user] }), now.timeIntervalSince(cached.at) < 60 { return cached.name }
        let name = (try? await repository.employee(id: user))?.name ?? user.rawValue
        names.withLock { $0[user] = (name, now) }
        return name
    }

    private func zone(of site: SiteID) async -> String {
        let now = environment.now()
        if let cached = zones.withLock({ $0[site] }), now.timeIntervalSince(cached.at) < 60 { return cached.zone }
        let zone = (try? await repository.site(id: site))?.timeZone ?? "UTC"
        zones.withLock { $0[site] = (zone, now) }
        return zone
    }
}
