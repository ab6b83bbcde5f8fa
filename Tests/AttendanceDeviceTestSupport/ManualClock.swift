import AttendanceSync
import Foundation

/// A clock that moves only when told.
public final class ManualClock: AttendanceClock, Sendable {
    private let current: Locked<Date>
    public init(_ start: Date) { current = Locked(start) }
    public func now() -> Date { current.value }
    public func set(_ time: Date) { current.value = time }
    public func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
