import AttendanceEngine
import AttendanceModels
import Foundation

/// Drives an engine in virtual time, firing its timer when due and keeping every action,
/// the way a runtime would (minus the I/O). Times are seconds from `origin`.
struct EngineDriver {
    static let origin = Date(timeIntervalSince1970: 1_795_338_000) // 2026-11-22T09:00:00Z
    static let uuid = SiteBeacon.defaultUUID

    var engine: Engine
    var timerAt: Date?
    private(set) var log: [(at: Date, action: EngineAction)] = []

    init(_ configuration: Configuration = Configuration()) {
        engine = Engine(configuration: configuration)
    }

    static func time(_ seconds: Double) -> Date { origin.addingTimeInterval(seconds) }

    /// Delivers `event` at `seconds`, after any timer that falls due before it.
    mutating func send(_ event: EngineEvent, at seconds: Double) {
        let now = Self.time(seconds)
        advance(to: seconds)
        record(engine.handle(event, now: now), at: now)
    }

    /// Lets virtual time pass, firing the timer as a phone with execution time would.
    mutating func advance(to seconds: Double) {
        let now = Self.time(seconds)
        while let due = timerAt, due <= now {
            timerAt = nil
            record(engine.handle(.timerFired(.nextDecision), now: due), at: due)
        }
    }

    /// One ranging callback at 1 Hz: `rssi` per (major, minor); 0 = not heard.
    mutating func ranged(at seconds: Double, _ beacons: [(major: UInt16, minor: UInt16, rssi: Int)]) {
        let samples = beacons.map { BeaconSample(beacon: BeaconIdentity(uuid: Self.uuid, major: $0.major, minor: $0.minor), rssi: $0.rssi) }
        send(.beaconsRanged(samples, region: BeaconRegion(uuid: Self.uuid)), at: seconds)
    }

    /// One ranging callback per second over `seconds` (half-open), from one beacon.
    mutating func ranged(major: UInt16 = 1, minor: UInt16 = 100, rssi: Int, over seconds: Range<Int>) {
        for second in seconds { ranged(at: Double(second), [(major, minor, rssi)]) }
    }

    private mutating func record(_ actions: [EngineAction], at now: Date) {
        for action in actions {
            log.append((now, action))
            switch action {
            case .scheduleTimer(_, let at): timerAt = at
            case .cancelTimer: timerAt = nil
            default: break
            }
        }
    }

    var events: [AttendanceEvent] {
        log.compactMap { if case .enqueue(let event) = $0.action { return event } else { return nil } }
    }

    func events(_ kind: AttendanceEvent.Kind) -> [AttendanceEvent] { events.filter { $0.kind == kind } }

    /// When each event was decided (the virtual time of the call that enqueued it).
    func decidedAt(_ kind: AttendanceEvent.Kind) -> [Date] {
        log.compactMap { entry in
            if case .enqueue(let event) = entry.action, event.kind == kind { return entry.at } else { return nil }
        }
    }

    var telemetry: [TelemetryRecord] {
        log.compactMap { if case .recordTelemetry(let record) = $0.action { return record } else { return nil } }
    }

    var notifications: [LocalNotification] {
        log.compactMap { if case .notify(let notification) = $0.action { return notification } else { return nil } }
    }

    func actions(at seconds: Double) -> [EngineAction] {
        log.filter { $0.at == Self.time(seconds) }.map(\.action)
    }
}
