import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Logging
import ServiceLifecycle

/// Feeds this process's `PresenceHub` the session changes that *other* server processes on the
/// same PostgreSQL database commit (replicas behind a proxy), so that a live "On site now" page
/// shows every replica's check-ins, not only those of the replica that served it. Every
/// `interval`, while a live page is open here, it reads the ledger's new rows (ids and session
/// keys only; `LedgerTail` decides which are new), reads those sessions as they are now, and hands
/// them to the hub, which skips a session whose state it already sent. While no page is open it
/// only notes where the ledger ends, and starts from where it ended two seconds before a page
/// joins, so that a change committed while the page was loading is not missed.
public struct PresenceFollower: Service {
    let repository: any LedgerRepository
    let hub: PresenceHub
    let interval: Duration
    let logger: Logger
    let environment: ServerEnvironment

    public init(
        repository: any LedgerRepository, hub: PresenceHub, interval: Duration = .milliseconds(250), logger: Logger,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.hub = hub
        self.interval = interval
        self.logger = logger
        self.environment = environment
    }

    /// The ledger's end at the last few idle ticks (about two seconds).
    private static let idleReadings = 8
    static let readLimit = 10_000

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                var tail: LedgerTail?
                var idleEnds: [Int64] = []
                try await repeatUntilCancelled(
                    every: interval, logger: logger,
                    failure: "following other servers' session changes failed; live pages show this server's only",
                    recovery: "following other servers' session changes again"
                ) {
                    if hub.subscriberCount == 0 {
                        tail = nil
                        idleEnds.append(try await repository.latestLedgerID())
                        if idleEnds.count > Self.idleReadings { idleEnds.removeFirst() }
                        return
                    }
                    if tail == nil {
                        var start = idleEnds.first
                        if start == nil { start = try await repository.latestLedgerID() }
                        tail = LedgerTail(after: start ?? 0)
                    }
                    try await follow(&tail!)
                }
            }
        } catch is CancellationError {
            // Stopped with the server.
        }
    }

    /// One read: the new rows' sessions, as they are now, to the hub.
    func follow(_ tail: inout LedgerTail) async throws {
        let rows = try await repository.ledgerSessionKeys(after: tail.floor, limit: Self.readLimit)
        let keys = tail.received(rows, now: environment.now())
        guard !keys.isEmpty else { return }
        hub.sessionsChanged(try await repository.sessions(keys: keys))
    }
}
