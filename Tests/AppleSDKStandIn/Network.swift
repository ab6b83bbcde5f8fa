// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation
import Dispatch

public struct NWPath: Sendable, Equatable {
    public enum Status: Sendable, Equatable { case satisfied, unsatisfied, requiresConnection }
    public let status: Status
    public let isExpensive: Bool
    public let isConstrained: Bool
}

final public class NWPathMonitor: @unchecked Sendable {
    public init() {}
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    // Apple documents it as `final var currentPath: NWPath { get set }`.
    final public var currentPath: NWPath {
        get { NWPath(status: .satisfied, isExpensive: false, isConstrained: false) }
        set {}
    }
    final public func start(queue: DispatchQueue) {}
    final public func cancel() {}
}
