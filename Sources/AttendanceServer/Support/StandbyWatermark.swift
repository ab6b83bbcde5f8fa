import Foundation

/// How current a hot standby is, from positions in the primary's write-ahead log: the primary's
/// position is sampled with the time it was read, and a standby that has replayed through a
/// sample's position holds every commit the primary had answered by that sample's time. Pure: the
/// caller reads the positions (`ReadRoute`).
public struct StandbyWatermark: Sendable, Equatable {
    /// The primary's positions, oldest first, each with when it was read.
    private var samples: [Sample] = []
    /// The standby holds everything the primary had committed at this time; nil until it is known
    /// (or while the standby can't be reached).
    public private(set) var asOf: Date?
    /// Samples kept while the standby falls behind: beyond it the oldest are dropped, which only
    /// makes `asOf` older than it might be, never newer.
    public static let sampleLimit = 4_096

    private struct Sample: Sendable, Equatable {
        var position: UInt64
        var at: Date
    }

    public init() {}

    /// The primary's log ended at `position` when read at `at`.
    public mutating func primary(at position: UInt64, readAt at: Date) {
        if let last = samples.indices.last, samples[last].position >= position {
            // No commit since: the same position, now known to hold at a later time.
            if samples[last].position == position { samples[last].at = max(samples[last].at, at) }
            return
        }
        samples.append(Sample(position: position, at: at))
        if samples.count > Self.sampleLimit { samples.removeFirst(samples.count - Self.sampleLimit) }
    }

    /// The standby has replayed through `position`: `asOf` moves to the newest sample it covers.
    public mutating func standby(replayedThrough position: UInt64) {
        guard let covered = samples.lastIndex(where: { $0.position <= position }) else { return }
        asOf = max(asOf ?? samples[covered].at, samples[covered].at)
        samples.removeFirst(covered)
    }

    /// The standby did not answer: nothing is known of it until it does.
    public mutating func standbyUnreachable() { asOf = nil }

    /// How far behind the standby is at `now`, in seconds; nil when unknown.
    public func staleness(now: Date) -> TimeInterval? { asOf.map { max(0, now.timeIntervalSince($0)) } }

    /// Whether a read may go to the standby: it is known to be at most `maxLag` seconds behind.
    public func permitsReading(now: Date, maxLag: TimeInterval) -> Bool {
        guard let staleness = staleness(now: now) else { return false }
        return staleness <= maxLag
    }
}
