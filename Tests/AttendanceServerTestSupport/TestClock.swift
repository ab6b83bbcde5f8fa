import AttendanceServer
import Foundation
import Synchronization

/// A server clock a test moves by hand, and the environment that reads it.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    public var now: Date { current.withLock { $0 } }
    public func set(_ time: Date) { current.withLock { $0 = time } }

    /// The live randomness with this clock.
    public var environment: ServerEnvironment { .clock { [self] in now } }
}
