import AttendanceModels
import AttendanceServer
import Foundation
import ServiceLifecycle
import Synchronization

/// The live half of On site now: told about every committed session change (`SessionObserver`),
/// it sends each open page whose viewer may see that site one server-sent event, `presence`, with
/// the row to show or remove. One lookup of the employee's name per change (cached for a
/// minute, as is the site's zone), and none while no page is open.
public final class PresenceHub: SessionObserver, Service {
    private struct Subscriber {
        var scope: SiteScope
        var continuation: AsyncStream<String>.Continuation
    }

    private let repository: any ServerRepository
    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let changes: AsyncStream<[SessionRecord]>
    private let input: AsyncStream<[SessionRecord]>.Continuation
    private let names = Mutex<[UserID: (name: String, at: Date)]>([:])
    private let zones = Mutex<[SiteID: (zone: String, at: Date)]>([:])
    private let keepAlive: Duration
    private let clock: @Sendable () -> Date

    public init(repository: any ServerRepository, keepAlive: Duration = .seconds(15),
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.repository = repository
        self.keepAlive = keepAlive
        self.clock = clock
        (changes, input) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100_000))
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    public func sessionsChanged(_ sessions: [SessionRecord]) {
        guard subscriberCount > 0 else { return }
        input.yield(sessions)
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
                for await batch in changes.cancelOnGracefulShutdown() {
                    for session in batch { await publish(session) }
                }
            }
            group.addTask { [self] in
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    try? await Task.sleep(for: keepAlive)
                    broadcast(": keep-alive\n\n", site: nil)
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

    private func publish(_ session: SessionRecord) async {
        let open = session.checkOutAt == nil && session.voidedAt == nil
        var row: [String: String] = [
            "site": session.siteId.rawValue, "session": session.sessionKey.rawValue, "user": session.userId.rawValue,
            "state": open ? "in" : "out",
        ]
        if open {
            let zone = await zone(of: session.siteId)
            row["name"] = await name(of: session.userId)
            row["since"] = LocalTime.plain(session.checkInAt, zone: zone)
            row["confidence"] = PresenceConfidence.of(
                sessionLastSeen: session.lastSeenAt, deviceLastSeen: nil, now: clock()).rawValue
        }
        guard let json = try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]) else { return }
        broadcast("event: presence\ndata: \(String(decoding: json, as: UTF8.self))\n\n", site: session.siteId)
    }

    /// A page that can't keep up (1,000 events waiting) is disconnected rather than left stale: its
    /// browser reconnects and reloads the page (console.js).
    private func broadcast(_ message: String, site: SiteID?) {
        let targets = subscribers.withLock { current in
            current.filter { site == nil || $0.value.scope.permits(site!) }.map { ($0.key, $0.value.continuation) }
        }
        for (id, continuation) in targets {
            if case .dropped = continuation.yield(message) { unsubscribe(id) }
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
