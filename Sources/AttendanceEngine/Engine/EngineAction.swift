import AttendanceModels
import Foundation

/// What the engine asks its runtime to do. The runtime persists the engine state first, then
/// performs these in order.
public enum EngineAction: Hashable, Sendable {
    /// The complete set of regions to monitor (idempotent; replaces the previous set).
    case monitorRegions([BeaconRegion])
    case startRanging(BeaconRegion)
    case stopRanging(BeaconRegion)
    case requestRegionState(BeaconRegion)
    case scheduleTimer(EngineTimer, at: Date)
    case cancelTimer(EngineTimer)
    /// Ask iOS for extended background time (~30 s instead of ~10 s) while ranging.
    case beginBackgroundTask
    case endBackgroundTask
    /// Keep the app running while a window decides: CoreLocation updates at the lowest accuracy
    /// with background updates allowed (`backgroundLocationMaxSeconds`), then stop them.
    case startBackgroundLocation
    case stopBackgroundLocation
    case queryMotion(lookbackMinutes: Double)
    /// Store durably in the outbox before anything else happens.
    case enqueue(AttendanceEvent)
    case drainOutbox
    case notify(LocalNotification)
    /// Remove a pending or shown notification by its identifier (an arrival reminder whose
    /// region is no longer monitored, or that is turned off or cannot work any more).
    case withdrawNotification(String)
    case recordTelemetry(TelemetryRecord)
}

/// A local notification the engine wants shown.
public struct LocalNotification: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// Automatic detection cannot work; invite the employee to check in by hand.
        case manualCheckInPrompt
        /// Scheduled ahead and pushed back each time the app runs: it is shown only when the app
        /// has not run for that long, which is what a force-quit looks like (iOS relaunches a
        /// force-quit app for nothing, not even region events, until it is opened again).
        case resumeReminder
        /// Held by iOS for `region` and shown by iOS on each entry into it, even when the app
        /// cannot run (force-quit). Sent again, it withdraws the one shown: the app is running.
        case arrivalReminder
    }

    public var kind: Kind
    /// In the phone's language when shown: the notification adapter resolves them.
    public var title: LocalizedText
    public var body: LocalizedText
    /// When to show it (nil: now). A newer notification of the same kind and sequence replaces
    /// a pending one.
    public var deliverAt: Date?
    /// Which of a kind's notifications this is (1, 2, …): the resume reminder repeats.
    public var sequence: Int
    /// Shown on entering this region instead of at a time (an arrival reminder).
    public var region: BeaconRegion?

    public init(
        kind: Kind, title: LocalizedText, body: LocalizedText, deliverAt: Date? = nil, sequence: Int = 1,
        region: BeaconRegion? = nil
    ) {
        self.kind = kind
        self.title = title
        self.body = body
        self.deliverAt = deliverAt
        self.sequence = sequence
        self.region = region
    }

    /// The identifier iOS holds it under: the kind, then the region or the sequence after the first.
    public var identifier: String { Self.identifier(kind, region: region, sequence: sequence) }

    public static func identifier(_ kind: Kind, region: BeaconRegion?, sequence: Int = 1) -> String {
        if let region { return "\(kind.rawValue).\(region.uuid.uuidString)" + (region.major.map { ".\($0)" } ?? "") }
        return sequence == 1 ? kind.rawValue : "\(kind.rawValue).\(sequence)"
    }
}

/// An audit line: why the engine did or did not decide something.
public struct TelemetryRecord: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case windowOpened, windowConfirmed, windowInsufficient, discoveryEmpty, exitSuspected, sessionResumed,
            checkedOut, manualRejected, detectionUnavailable, detectionRestored, configurationRejected,
            configurationApplied, upload
    }

    public var at: Date
    public var kind: Kind
    public var site: SiteBeacon?
    public var detail: String

    public init(at: Date, kind: Kind, site: SiteBeacon?, detail: String) {
        self.at = at
        self.kind = kind
        self.site = site
        self.detail = detail
    }
}
