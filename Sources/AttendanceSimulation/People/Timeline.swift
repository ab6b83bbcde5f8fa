import AttendanceModels
import Foundation

/// A point in the shared plane of all sites, in metres. Far away is simply far (no beacon hears it).
public struct Position: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let away = Position(x: -1_000_000, y: -1_000_000)

    public func distance(to other: Position) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }
}

/// Where a person is over time: straight walks between waypoints. `shieldedDB` is extra loss for
/// stretches inside the building but out of radio coverage (a stairwell, a restroom behind
/// concrete): the person is on site, the phone hears nothing.
public struct Waypoint: Hashable, Sendable, Codable {
    public var time: Double
    public var position: Position
    public var shieldedDB: Double

    public init(time: Double, position: Position, shieldedDB: Double = 0) {
        self.time = time
        self.position = position
        self.shieldedDB = shieldedDB
    }
}

/// One person's whole simulated stay: the path, and the ground truth derived from it.
public struct Timeline: Hashable, Sendable, Codable {
    public var employee: UserID
    /// Sorted by time; before the first the person is at the first position, after the last at
    /// the last.
    public var waypoints: [Waypoint]
    /// The stays inside each site's zone, from the plan (door to door).
    public var presences: [TruePresence]
    /// Walks through another site's zone on the way (an annex reached through the office),
    /// computed from the path: the person truly is there, briefly.
    public var passages: [TruePresence] = []

    /// Everything the person truly spent inside any zone: the ground truth.
    public var truth: [TruePresence] { (presences + passages).sorted { $0.start < $1.start } }

    /// Where the person is at `time`, and how shielded.
    public func position(at time: Double) -> (Position, shieldedDB: Double) {
        guard let first = waypoints.first else { return (.away, 0) }
        guard time > first.time else { return (first.position, first.shieldedDB) }
        // Binary search for the segment holding `time`.
        var low = 0, high = waypoints.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if waypoints[mid].time <= time { low = mid } else { high = mid - 1 }
        }
        let a = waypoints[low]
        guard low + 1 < waypoints.count else { return (a.position, a.shieldedDB) }
        let b = waypoints[low + 1]
        let span = b.time - a.time
        let f = span > 0 ? (time - a.time) / span : 1
        let position = Position(x: a.position.x + (b.position.x - a.position.x) * f, y: a.position.y + (b.position.y - a.position.y) * f)
        return (position, a.shieldedDB)
    }

    /// The time of the first waypoint after `time` (where the path may change), if any.
    public func nextWaypointTime(after time: Double) -> Double? {
        var low = 0, high = waypoints.count
        while low < high {
            let mid = (low + high) / 2
            if waypoints[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        return low < waypoints.count ? waypoints[low].time : nil
    }
}

extension Timeline {
    /// The intervals the path spends inside `zone` (x0...x1 × y0...y1), from each walked segment
    /// (a jump faster than `maxSpeed` m/s is how the plan moves a person far away, not a walk).
    func intervals(inside zone: (x0: Double, x1: Double, y0: Double, y1: Double), maxSpeed: Double = 10) -> [Range<Double>] {
        var result: [Range<Double>] = []
        for (a, b) in zip(waypoints, waypoints.dropFirst()) where b.time > a.time {
            let dx = b.position.x - a.position.x, dy = b.position.y - a.position.y
            guard (dx * dx + dy * dy).squareRoot() / (b.time - a.time) <= maxSpeed else { continue }
            // Liang–Barsky clipping of the segment to the rectangle, in segment fractions.
            var low = 0.0, high = 1.0
            for (p, q) in [(-dx, a.position.x - zone.x0), (dx, zone.x1 - a.position.x), (-dy, a.position.y - zone.y0), (dy, zone.y1 - a.position.y)] {
                if p == 0 {
                    if q < 0 { low = 1; high = 0 }
                } else if p < 0 {
                    low = max(low, q / p)
                } else {
                    high = min(high, q / p)
                }
            }
            guard low < high else { continue }
            let span = (a.time + low * (b.time - a.time))..<(a.time + high * (b.time - a.time))
            if let last = result.last, last.upperBound >= span.lowerBound - 0.001 {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                result.append(span)
            }
        }
        return result
    }
}
