import AttendanceStorage
import Foundation
import Synchronization

/// Where the heavy reads go (timesheets, exports, the audit, the console's lists): a PostgreSQL hot
/// standby while it is known to hold the primary's commits of at most `maxLagSeconds` ago, and
/// the primary otherwise (no standby, or one too far behind or not answering). Writes, sign-in and
/// the live feed always use the primary.
public final class ReadRoute: Sendable {
    public let primary: any ServerRepository
    private let standby: (any ServerRepository)?
    public let maxLagSeconds: Double
    private let watermark = Mutex(StandbyWatermark())
    private let now: @Sendable () -> Date

    /// A read's repository, and when it comes from the standby, the time as of which it holds
    /// everything the primary had committed (for "as of 2 s ago").
    public struct Reading: Sendable {
        public var repository: any ServerRepository
        public var asOf: Date?
    }

    /// Every read on `primary`.
    public convenience init(primary: any ServerRepository) {
        self.init(primary: primary, standby: nil, maxLagSeconds: 0, now: { Date() })
    }

    public init(
        primary: any ServerRepository, standby: (any ServerRepository)?, maxLagSeconds: Double,
        now: @escaping @Sendable () -> Date
    ) {
        self.primary = primary
        self.standby = standby
        self.maxLagSeconds = maxLagSeconds
        self.now = now
    }

    /// Where a heavy read goes now.
    public func reading() -> Reading {
        guard let standby else { return Reading(repository: primary, asOf: nil) }
        let now = now()
        guard let asOf = watermark.withLock({ $0.permitsReading(now: now, maxLag: maxLagSeconds) ? $0.asOf : nil })
        else { return Reading(repository: primary, asOf: nil) }
        return Reading(repository: standby, asOf: asOf)
    }

    /// Whether there is a standby to read from (`--read-database`).
    public var hasStandby: Bool { standby != nil }

    /// How far behind the standby is, in seconds (nil: no standby, or not known).
    public func standbyStaleness() -> TimeInterval? {
        guard standby != nil else { return nil }
        return watermark.withLock { $0.staleness(now: now()) }
    }

    /// One round of following the standby: the primary's log position, then how far the standby
    /// has replayed. A standby that fails to answer within `timeout` (one that is down makes its
    /// pool wait for a connection) takes no reads until it answers again.
    public func follow(
        timeout: Duration = .seconds(1), primaryPosition: () async throws -> UInt64,
        standbyPosition: @escaping @Sendable () async throws -> UInt64
    ) async throws {
        let position = try await primaryPosition()
        let readAt = now()
        watermark.withLock { $0.primary(at: position, readAt: readAt) }
        do {
            let replayed = try await withThrowingTaskGroup(of: UInt64?.self) { group in
                group.addTask { try await standbyPosition() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let replayed = first else {
                    throw StandbyTimeout(timeout: timeout)
                }
                return replayed
            }
            watermark.withLock { $0.standby(replayedThrough: replayed) }
        } catch {
            watermark.withLock { $0.standbyUnreachable() }
            throw error
        }
    }

    struct StandbyTimeout: Error, CustomStringConvertible {
        var timeout: Duration
        var description: String { "the standby did not answer within \(timeout)" }
    }
}
