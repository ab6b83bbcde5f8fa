import AttendanceSync
import Foundation

/// A simulated phone's clock: it moves only when the simulated world says so.
public final class SimulatedClock: AttendanceClock, Sendable {
    private let current: Locked<Date>
    public init(_ start: Date) { current = Locked(start) }
    public func now() -> Date { current.value }
    public func set(_ time: Date) { current.value = time }
}
