// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Foundation

@available(iOS 14.0, *)
@frozen
public struct OSLogPrivacy: Sendable, Equatable {
    let raw: Int
    public static let auto = OSLogPrivacy(raw: 0)
    public static let `public` = OSLogPrivacy(raw: 1)
    public static let `private` = OSLogPrivacy(raw: 2)
    public static let sensitive = OSLogPrivacy(raw: 3)
}

@available(iOS 14.0, *)
public struct OSLogStringAlignment: Sendable {
    public static let none = OSLogStringAlignment()
}

@available(iOS 14.0, *)
public struct OSLogIntegerFormatting: Sendable {
    public static let decimal = OSLogIntegerFormatting()
}

@available(iOS 14.0, *)
public struct OSLogFloatFormatting: Sendable {
    public static let fixed = OSLogFloatFormatting()
}

@available(iOS 14.0, *)
public enum OSLogBoolFormat: Sendable {
    case truth, answer
}

@available(iOS 14.0, *)
@frozen
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    public mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String,
                                             align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {}
    public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: @autoclosure @escaping () -> T,
                                             align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {}
    public mutating func appendInterpolation<T: FixedWidthInteger>(
        _ number: @autoclosure @escaping () -> T, format: OSLogIntegerFormatting = .decimal,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {}
    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Double, format: OSLogFloatFormatting = .fixed,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {}
    public mutating func appendInterpolation(_ boolean: @autoclosure @escaping () -> Bool,
                                             format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto) {}
}

@available(iOS 14.0, *)
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}

@available(iOS 14.0, *)
public struct Logger: @unchecked Sendable {
    public init(subsystem: String, category: String) {}
    public init() {}
    public func log(_ message: OSLogMessage) {}
    public func debug(_ message: OSLogMessage) {}
    public func info(_ message: OSLogMessage) {}
    public func notice(_ message: OSLogMessage) {}
    public func warning(_ message: OSLogMessage) {}
    public func error(_ message: OSLogMessage) {}
    public func fault(_ message: OSLogMessage) {}
    public func critical(_ message: OSLogMessage) {}
}
