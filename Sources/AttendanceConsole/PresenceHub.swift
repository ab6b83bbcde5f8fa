import AttendanceModels
import AttendanceServer
import Foundation
import ServiceLifecycle
import Synchronization

/// The live half of On site now: told about every committed session change (`SessionObserver`),
/// it sends each open page whose viewer may see that site a server-sent event, `presence`, with
/// the row to show or remove. Changes are sent at once when the hub is idle; under load, those
/// that arrive within `flushInterval` of the last send go together in one write per page, so 200
/// open pages cost 200 writes per interval, not per check-in. One lookup of the employee's name
/// per change (cached for a minute, as is the site's zone), and none while no page is open.
public final class PresenceHub: SessionObserver, Service {
    private struct Subscriber {
        var scope: SiteScope
        var continuation: AsyncStream<String>.Continuation
    }

    private let repository: any ServerRepository
    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let pending = Mutex<[SessionRecord]>([])
    private let ticks: AsyncStream<Void>
    private let tick: AsyncStream<Void>.Continuation
    private let flushInterval: Duration
    private let names = Mutex<[UserID: (name: String, at: Date)]>([:])
    private let zones = Mutex<[SiteID: (zone: String, at: Date)]>([:])
    private let keepAlive: Duration
    private let clock: @Sendable () -> Date

    public init(
        repository: any ServerRepository, keepAlive: Duration = .seconds(15), flushInterval: Duration = .milliseconds(100),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.repository = repository
        self.keepAlive = keepAlive
        self.flushInterval = flushInterval
        self.clock = clock
        (ticks, tick) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    public func sessionsChanged(_ sessions: [SessionRecord]) {
        guard subscriberCount > 0 else { return }
        pending.withLock { $0 += sessions }
        tick.yield()
    }

    /// A page's stream of events, each a complete `text/event-stream` message.
    func subscribe(scope: SiteScope) -> (id: UInt64, events: AsyncStream<String>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (events, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        subscribers.withLock { $0[id] = Subscriber(scope: scope, continuation: continuation) }
        return (id, events)
    }

    func unsubscribe(_ id: UInt64) {
        subscribers.withLock { $0.removeValue(forKey: id) }?.continuation.finish()
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await _ in ticks.cancelOnGracefulShutdown() {
                    let batch = pending.withLock { current in
                        defer { current.removeAll(keepingCapacity: true) }
                        return current
                    }
                    var events: [(site: SiteID, message: String)] = []
                    for session in batch { events.append((session.siteId, await event(session))) }
                    send(events)
                    try? await Task.sleep(for: flushInterval)
                }
            }
            group.addTask { [self] in
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    try? await Task.sleep(for: keepAlive)
                    send([(nil, ": keep-alive\n\n")])
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        let all = subscribers.withLock { current in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
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
            row["since"] = LocalTime.plain(session.checkInAt, zone: zone)
            row["confidence"] =
                PresenceConfidence.of(
                    sessionLastSeen: session.lastSeenAt, deviceLastSeen: nil, now: clock()
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
        let targets = subscribers.withLock { current in current.map { ($0.key, $0.value) } }
        for (id, subscriber) in targets {
            let text = events.filter { $0.site.map(subscriber.scope.permits) ?? true }.map(\.message).joined()
            guard !text.isEmpty else { continue }
            if case .dropped = subscriber.continuation.yield(text) { unsubscribe(id) }
        }
    }

    private func name(of user: UserID) async -> String {
        let now = clock()
        if let cached = names.withLock({ $0[user] }), now.timeIntervalSince(cached.at) < 60 { return cached.name }
        let name = (try? await repository.employee(id: user))?.name ?? user.rawValue
        names.withLock { $0[user] = (name, now) }
        return name
    }

    private func zone(of site: SiteID) async -> String {
        let now = clock()
        if let cached = zones.withLock({ $0[site] }), now.timeIntervalSince(cached.at) < 60 { return cached.zone }
        let zone = (try? await repository.site(id: site))?.timeZone ?? "UTC"
        zones.withLock { $0[site] = (zone, now) }
        return zone
    }
}
