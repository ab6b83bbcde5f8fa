import AttendanceStorage
import Foundation
import Synchronization

/// What this process may trust of what it cached: the database's directory version
/// (`AttendanceRepository.directoryVersion`), as last read, and when that read started.
///
/// Several server processes share one PostgreSQL. A site edited, a device revoked or a token
/// revoked through one of them must be seen by all of them within `trustSeconds`. Each process
/// reads the version every `pollInterval` (`DirectoryWatcher` in the HTTP layer runs `poll`); a
/// cached entry is served only when it was loaded under the version read last, and only while that
/// read started less than `trustSeconds` ago. A read that started at S sees every change committed
/// before S, so nothing older than `trustSeconds` is ever served; when the reads stall (a database
/// that does not answer), the caches step aside and every lookup goes to the database.
public final class DirectoryWatch: Sendable {
    /// How long a read of the version vouches for the caches (issue #26: within 1 s).
    public static let trustSeconds: Double = 0.5
    /// How often `DirectoryWatcher` reads it: well inside `trustSeconds`.
    public static let pollInterval: Duration = .milliseconds(200)

    private struct Reading {
        var version: Int64
        var startedAt: ContinuousClock.Instant
    }

    private let repository: any AttendanceRepository
    private let reading = Mutex<Reading?>(nil)
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `now`: the monotonic clock (tests move it; the server's business clock plays no part).
    public init(
        repository: any AttendanceRepository, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.repository = repository
        self.now = now
    }

    /// The version the caches may serve under now, or nil when no recent read vouches for them.
    public func trustedVersion() -> Int64? {
        let instant = self.now()
        return reading.withLock { reading in
            guard let reading, reading.startedAt.duration(to: instant) < .seconds(Self.trustSeconds) else { return nil }
            return reading.version
        }
    }

    /// Reads the version once and records it with the time the read started.
    public func poll() async throws {
        let startedAt = self.now()
        let version = try await repository.directoryVersion()
        reading.withLock { current in
            // Reads can finish out of order; the one that started last is the one that vouches.
            if let current, current.startedAt > startedAt { return }
            current = Reading(version: version, startedAt: startedAt)
        }
    }
}
