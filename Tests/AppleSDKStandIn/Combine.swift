// Stand-in of the iOS 18 SDK surface that Apps/iOS uses, for a Swift 6 type-check on Linux
// (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
// Combine: only what SwiftUI's data flow names (ObservableObject, @Published).

public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
}

public final class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    public init() {}
    public func send() {}
}

public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { ObservableObjectPublisher() }
}

/// Not Sendable (as in the SDK); usable only as a class's stored property.
@propertyWrapper
public struct Published<Value> {
    public struct Publisher: Combine.Publisher {
        public typealias Output = Value
        public typealias Failure = Never
    }

    private var value: Value
    public init(wrappedValue: Value) { value = wrappedValue }
    public var wrappedValue: Value {
        get { value }
        set { value = newValue }
    }
    public var projectedValue: Publisher { Publisher() }
}
