import AttendanceEngine
import Foundation

/// What the platform tells a device, in the order it happened: the app's inbox.
public enum DeviceInput: Hashable, Sendable {
    /// The process started (opened, or relaunched by iOS); at most once per process counts.
    case launch(LaunchReason)
    /// A callback for the engine (region, ranging, motion, permissions, …), and when iOS
    /// reported it (`post` stamps it), so an event held for the launch keeps its own time.
    case engine(EngineEvent, at: Date? = nil)
    /// A timer the runtime scheduled, by name.
    case timer(String)
    /// The delivery's turn (the background URLSession finished, the user pulled to refresh).
    case drain
    case networkReachable
    /// A background app refresh task: fetch the configuration, then drain. Never a launch.
    case backgroundRefresh
}

/// The app process's lifecycle as a value: inputs in, actions out. Launch happens once per
/// process; what arrives before the launch has finished waits for it, in order; a device that
/// is not enrolled has no engine, so its inputs are set aside (and counted), not queued forever.
///
/// | # | state | input | next state | actions |
/// |---|---|---|---|---|
/// | L1 | starting | launch(r) | launching | startRuntime(r) |
/// | L2 | starting | backgroundRefresh | launching | startRuntime(.backgroundRefresh); input held |
/// | L3 | starting | engine, timer, drain, networkReachable | launching | startRuntime(reason for it); input held |
/// | L4 | launching | launch | launching | none (once per process) |
/// | L5 | launching | any other input | launching | input held |
/// | L6 | launching | runtimeStarted(enrolled) | running | each held input, in order |
/// | L7 | launching | runtimeStarted(not enrolled) | notEnrolled | each held input set aside |
/// | L8 | launching | runtimeFailed | starting | none; held inputs kept, first, for the next try |
/// | L9 | running | launch | running | none (a live process is not a new one) |
/// | L10 | running | backgroundRefresh | running | refreshConfiguration, deliver(drain) |
/// | L11 | running | any other input | running | deliver(input) |
/// | L12 | notEnrolled | any input | notEnrolled | set aside |
/// | L13 | any | enrolled | running | each held input, in order |
public struct DeviceLifecycle: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        /// The process began, or its launch failed; nothing is launching the runtime now.
        /// `held`: what arrived before a launch that failed, in order.
        case starting(held: [DeviceInput])
        /// The runtime is being restored; inputs wait, in arrival order.
        case launching(held: [DeviceInput])
        case running
        /// Launched without an enrollment: the app shows enrollment.
        case notEnrolled
    }

    /// What the device does next.
    public enum Action: Hashable, Sendable {
        /// Restore the enrollment and start the runtime with this launch reason, then report
        /// `runtimeStarted` or `runtimeFailed`.
        case startRuntime(LaunchReason)
        /// Hand the input to the runtime.
        case deliver(DeviceInput)
        /// Fetch the remote configuration (a background refresh).
        case refreshConfiguration
        /// Nothing can use it: there is no enrollment on this phone.
        case setAside(DeviceInput)
    }

    public private(set) var state: State = .starting(held: [])

    public init() {}

    /// An input from the platform.
    public mutating func receive(_ input: DeviceInput) -> [Action] {
        switch state {
        case .starting(let held):
            if case .launch(let reason) = input {
                state = .launching(held: held)
                return [.startRuntime(reason)]
            }
            let waiting = held + [input]
            state = .launching(held: waiting)
            return [.startRuntime(Self.launchReason(for: waiting[0]))]
        case .launching(let held):
            if case .launch = input { return [] }
            state = .launching(held: held + [input])
            return []
        case .running:
            return Self.actions(running: input)
        case .notEnrolled:
            return [.setAside(input)]
        }
    }

    /// The launch finished: `enrolled` says whether there is a runtime.
    public mutating func runtimeStarted(enrolled: Bool) -> [Action] {
        guard case .launching(let held) = state else { return [] }
        if enrolled {
            state = .running
            return held.flatMap(Self.actions(running:))
        }
        state = .notEnrolled
        return held.map(Action.setAside)
    }

    /// The launch threw (an unreadable enrollment, a database that would not open): the next
    /// input tries again, with what was held still first.
    public mutating func runtimeFailed() {
        guard case .launching(let held) = state else { return }
        state = .starting(held: held)
    }

    /// The device enrolled in this process: the runtime exists from now on.
    public mutating func enrolled() -> [Action] {
        let held: [DeviceInput]
        switch state {
        case .starting(let waiting), .launching(let waiting): held = waiting
        case .running, .notEnrolled: held = []
        }
        state = .running
        return held.flatMap(Self.actions(running:))
    }

    private static func actions(running input: DeviceInput) -> [Action] {
        switch input {
        case .launch: []
        case .backgroundRefresh: [.refreshConfiguration, .deliver(.drain)]
        default: [.deliver(input)]
        }
    }

    /// Why iOS started the process, from the first thing it delivered.
    static func launchReason(for input: DeviceInput) -> LaunchReason {
        switch input {
        case .launch(let reason): reason
        case .backgroundRefresh: .backgroundRefresh
        case .engine(.regionEntered, _), .engine(.regionExited, _), .engine(.regionStateDetermined, _): .regionEvent
        case .engine(.geofenceEntered, _), .engine(.geofenceExited, _), .engine(.locationWake, _): .locationEvent
        default: .userOpened
        }
    }
}

extension DeviceInput {
    /// An engine event without its time gets `time` (when it was posted); the rest is unchanged.
    func stamped(_ time: Date) -> DeviceInput {
        if case .engine(let event, nil) = self { return .engine(event, at: time) }
        return self
    }
}
