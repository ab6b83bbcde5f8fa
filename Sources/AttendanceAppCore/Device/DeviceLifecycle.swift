import AttendanceEngine
import Foundation

/// What the platform tells a device, in the order it happened: the app's inbox.
public enum DeviceInput: Hashable, Sendable {
    /// The process started (opened, or relaunched by iOS); at most once per process counts.
    case launch(LaunchReason)
    /// iOS started the process in the background without saying why (the SwiftUI lifecycle gives
    /// no launch options; a prewarmed process looks the same): the first input that names a
    /// reason launches, with that reason.
    case launchedInBackground
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
    /// The app's files and Keychain became readable (iOS's `protectedDataDidBecomeAvailable`,
    /// posted at every unlock): what waited for the first unlock after a reboot goes on.
    case protectedDataAvailable
}

/// The app process's lifecycle as a value: inputs in, actions out. Launch happens once per
/// process; what arrives before the launch has finished waits for it, in order; a device that
/// is not enrolled has no engine, so its inputs are set aside (and counted), not queued forever.
/// Before the first unlock after a reboot the enrollment, the Keychain and the database cannot
/// be read: the launch finds the phone `locked`, region and location callbacks go into a journal
/// readable then (`PreUnlockJournal`), and the first unlock launches again.
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
/// | L14 | starting | launchedInBackground | identifying | none |
/// | L15 | identifying | an input that names a launch reason | launching | startRuntime(its reason); held |
/// | L16 | identifying | an input that names none | identifying | input held |
/// | L17 | launching | runtimeLocked | locked | journal(each held region or location event); the rest held |
/// | L18 | locked | a region or location event | locked | journal(event) |
/// | L19 | locked | protectedDataAvailable | launching | startRuntime(.afterReboot) |
/// | L20 | locked | journalFailed(event) | locked | event held |
/// | L21 | locked | launch, launchedInBackground | locked | none |
/// | L22 | locked | any other input | locked | input held |
/// | L23 | not locked | protectedDataAvailable, launchedInBackground (not L14) | unchanged | none |
public struct DeviceLifecycle: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        /// The process began, or its launch failed; nothing is launching the runtime now.
        /// `held`: what arrived before a launch that failed, in order.
        case starting(held: [DeviceInput])
        /// Started in the background for a reason not known yet; inputs wait for one that names it.
        case identifying(held: [DeviceInput])
        /// The runtime is being restored; inputs wait, in arrival order.
        case launching(held: [DeviceInput])
        /// Before the first unlock: nothing the runtime needs can be read. `held`: the inputs that
        /// wait in memory (the region and location events are in the journal instead).
        case locked(held: [DeviceInput])
        case running
        /// Launched without an enrollment: the app shows enrollment.
        case notEnrolled
    }

    /// What the device does next.
    public enum Action: Hashable, Sendable {
        /// Restore the enrollment and start the runtime with this launch reason, then report
        /// `runtimeStarted`, `runtimeLocked` or `runtimeFailed`.
        case startRuntime(LaunchReason)
        /// Hand the input to the runtime.
        case deliver(DeviceInput)
        /// Fetch the remote configuration (a background refresh).
        case refreshConfiguration
        /// Nothing can use it: there is no enrollment on this phone.
        case setAside(DeviceInput)
        /// Keep the event in the journal readable before the first unlock (report `journalFailed`
        /// if it cannot be written).
        case journal(DeviceInput)
    }

    public private(set) var state: State = .starting(held: [])

    public init() {}

    /// An input from the platform.
    public mutating func receive(_ input: DeviceInput) -> [Action] {
        switch state {
        case .starting(let held):
            switch input {
            case .launch(let reason):
                state = .launching(held: held)
                return [.startRuntime(reason)]
            case .launchedInBackground:
                state = .identifying(held: held)
                return []
            case .protectedDataAvailable:
                return []
            default:
                let waiting = held + [input]
                state = .launching(held: waiting)
                return [.startRuntime(Self.launchReason(for: waiting) ?? .userOpened)]
            }
        case .identifying(let held):
            if case .protectedDataAvailable = input { return [] }
            if case .launchedInBackground = input { return [] }
            guard let reason = input.launchReason else {
                state = .identifying(held: held + [input])
                return []
            }
            if case .launch = input {
                state = .launching(held: held)
            } else {
                state = .launching(held: held + [input])
            }
            return [.startRuntime(reason)]
        case .launching(let held):
            switch input {
            case .launch, .launchedInBackground, .protectedDataAvailable: return []
            default:
                state = .launching(held: held + [input])
                return []
            }
        case .locked(let held):
            switch input {
            case .launch, .launchedInBackground:
                return []
            case .protectedDataAvailable:
                state = .launching(held: held)
                return [.startRuntime(.afterReboot)]
            case _ where input.isRegionOrLocationCallback:
                return [.journal(input)]
            default:
                state = .locked(held: held + [input])
                return []
            }
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

    /// The launch found the app's protected files unreadable (before the first unlock): the
    /// region and location events held go to the journal; `protectedDataAvailable` tries again.
    public mutating func runtimeLocked() -> [Action] {
        guard case .launching(let held) = state else { return [] }
        state = .locked(held: held.filter { !$0.isRegionOrLocationCallback })
        return held.filter(\.isRegionOrLocationCallback).map(Action.journal)
    }

    /// The journal could not take `input`: it waits in memory instead (lost only with the process).
    public mutating func journalFailed(_ input: DeviceInput) {
        guard case .locked(let held) = state else { return }
        state = .locked(held: held + [input])
    }

    /// The device enrolled in this process: the runtime exists from now on.
    public mutating func enrolled() -> [Action] {
        let held: [DeviceInput]
        switch state {
        case .starting(let waiting), .identifying(let waiting), .launching(let waiting), .locked(let waiting):
            held = waiting
        case .running, .notEnrolled: held = []
        }
        state = .running
        return held.flatMap(Self.actions(running:))
    }

    private static func actions(running input: DeviceInput) -> [Action] {
        switch input {
        case .launch, .launchedInBackground, .protectedDataAvailable: []
        case .backgroundRefresh: [.refreshConfiguration, .deliver(.drain)]
        default: [.deliver(input)]
        }
    }

    /// Why iOS started the process, from the first input that names a reason.
    static func launchReason(for inputs: [DeviceInput]) -> LaunchReason? {
        inputs.lazy.compactMap(\.launchReason).first
    }
}

extension DeviceInput {
    /// The launch reason this input shows when it is the first of a process; `nil` for inputs
    /// that come in any process (the network, permissions, the configuration).
    var launchReason: LaunchReason? {
        switch self {
        case .launch(let reason): reason
        case .backgroundRefresh: .backgroundRefresh
        case .drain: .backgroundUpload
        case .engine(.regionEntered, _), .engine(.regionExited, _), .engine(.regionStateDetermined, _),
            .engine(.beaconsRanged, _):
            .regionEvent
        case .engine(.geofenceEntered, _), .engine(.geofenceExited, _), .engine(.locationWake, _): .locationEvent
        case .engine(.manualCheckIn, _), .engine(.manualCheckOut, _): .userOpened
        case .timer: .userOpened
        case .launchedInBackground, .networkReachable, .protectedDataAvailable, .engine: nil
        }
    }

    /// A region or location callback: what iOS wakes or relaunches the app for (the Apple
    /// adapter holds background time from the moment it arrives), and what is kept in the journal
    /// before the first unlock (a beacon or a site and a time; nothing personal).
    public var isRegionOrLocationCallback: Bool {
        switch self {
        case .engine(.regionEntered, _), .engine(.regionExited, _), .engine(.regionStateDetermined, _),
            .engine(.geofenceEntered, _), .engine(.geofenceExited, _), .engine(.locationWake, _):
            true
        default: false
        }
    }

    /// An engine event without its time gets `time` (when it was posted); the rest is unchanged.
    func stamped(_ time: Date) -> DeviceInput {
        if case .engine(let event, nil) = self { return .engine(event, at: time) }
        return self
    }
}
