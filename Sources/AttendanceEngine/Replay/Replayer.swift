import AttendanceModels
import Foundation

/// Runs the engine over a trace in virtual time, as a phone would have: it fires the engine's
/// timer when it falls due, synthesizes region entries and exits the way iOS reports them when
/// the trace has none, and lets time run on after the last row so pending decisions settle.
public struct Replayer: Sendable {
    public var configuration: Configuration
    /// How long virtual time runs on after the last row.
    public var settleSeconds: Double

    public init(configuration: Configuration = Configuration(), settleSeconds: Double = 900) {
        self.configuration = configuration
        self.settleSeconds = settleSeconds
    }

    /// One attendance decision, as `attendance replay --json` prints it.
    public struct Decision: Hashable, Sendable, Codable {
        public var type: AttendanceEvent.Kind
        public var uuid: UUID
        public var major: UInt16
        /// The recorded time of the event.
        public var ts: Date
        /// The virtual time at which the engine decided it.
        public var decidedAt: Date
        public var sessionKey: SessionKey
        public var source: EventSource
        public var reason: String?
    }

    public struct Result: Sendable {
        public var decisions: [Decision]
        public var telemetry: [TelemetryRecord]
        /// Region events replay made up because the trace had none.
        public var synthesizedRegionEvents: Int
        public var finalEngine: Engine
    }

    private struct Input {
        var time: Date
        /// Orders inputs at the same time: synthesized exits, then entries, then the trace's rows.
        var priority: Int
        var sequence: Int
        var event: EngineEvent
    }

    public func run(_ trace: ReplayTrace) -> Result {
        var engine = Engine(configuration: configuration)
        var inputs = traceInputs(trace)
        var synthesized = 0
        if !trace.hasRegionEvents {
            let regionInputs = synthesizeRegionEvents(trace, regions: engine.monitoredRegions)
            synthesized = regionInputs.count
            inputs += regionInputs
        }
        inputs.sort { ($0.time, $0.priority, $0.sequence) < ($1.time, $1.priority, $1.sequence) }

        var result = Result(decisions: [], telemetry: [], synthesizedRegionEvents: synthesized, finalEngine: engine)
        var timerAt: Date?
        func perform(_ actions: [EngineAction], at now: Date) {
            for action in actions {
                switch action {
                case .scheduleTimer(_, let at): timerAt = at
                case .cancelTimer: timerAt = nil
                case .enqueue(let event):
                    result.decisions.append(Decision(type: event.kind, uuid: event.site.uuid, major: event.site.major, ts: event.timestamp,
                                                     decidedAt: now, sessionKey: event.sessionKey, source: event.source, reason: event.reason))
                case .recordTelemetry(let record):
                    result.telemetry.append(record)
                default:
                    break
                }
            }
        }
        func fireTimers(through horizon: Date) {
            while let due = timerAt, due <= horizon {
                timerAt = nil
                perform(engine.handle(.timerFired(.nextDecision), now: due), at: due)
            }
        }
        let horizon = trace.rows.last.map { $0.time.addingTimeInterval(settleSeconds) } ?? .distantPast
        for input in inputs where input.time <= horizon {
            fireTimers(through: input.time)
            perform(engine.handle(input.event, now: input.time), at: input.time)
        }
        fireTimers(through: horizon)
        result.finalEngine = engine
        return result
    }

    private func traceInputs(_ trace: ReplayTrace) -> [Input] {
        var permissions = Permissions()
        var walkingSince: Date?
        var inputs: [Input] = []
        for (sequence, row) in trace.rows.enumerated() {
            let event: EngineEvent
            switch row {
            case .ranging(_, let samples, _):
                event = .beaconsRanged(samples, region: BeaconRegion(uuid: samples[0].beacon.uuid))
            case .event(_, let traceEvent, _):
                event = engineEvent(for: traceEvent, at: row.time, permissions: &permissions, walkingSince: &walkingSince)
            }
            inputs.append(Input(time: row.time, priority: 2, sequence: sequence, event: event))
        }
        return inputs
    }

    /// `walkingSince`: when the current walk began (a `walking` or `running` row), so that a later
    /// `stationary` row carries what CoreMotion's history would show.
    private func engineEvent(for traceEvent: TraceEvent, at time: Date, permissions: inout Permissions, walkingSince: inout Date?) -> EngineEvent {
        func region(_ major: UInt16?) -> BeaconRegion { BeaconRegion(uuid: configuration.proximityUUID, major: major) }
        func site(_ major: UInt16) -> SiteBeacon {
            configuration.sites.first { $0.major == major }?.beacon(defaultUUID: configuration.proximityUUID)
                ?? SiteBeacon(uuid: configuration.proximityUUID, major: major)
        }
        switch traceEvent {
        case .region(.enter, let major): return .regionEntered(region(major))
        case .region(.exit, let major): return .regionExited(region(major))
        case .region(.inside, let major): return .regionStateDetermined(region(major), .inside)
        case .region(.outside, let major): return .regionStateDetermined(region(major), .outside)
        case .launch(let reason): return .appLaunched(reason)
        case .motion(let activity):
            let moving = activity == .walking || activity == .running
            if moving, walkingSince == nil { walkingSince = time }
            let walkStart = walkingSince.flatMap { time.timeIntervalSince($0) <= configuration.departureMotionLookbackMinutes * 60 ? $0 : nil }
            if !moving { walkingSince = nil }
            return .motionUpdated(MotionSnapshot(at: time, activity: activity, confidence: .high, walkingSince: walkStart))
        case .geofence(let entered, let major): return entered ? .geofenceEntered(site(major)) : .geofenceExited(site(major))
        case .locationWake: return .locationWake
        case .backgroundExpiring: return .backgroundTimeExpiring
        case .networkReachable: return .networkReachable
        case .timer: return .timerFired(.nextDecision)
        case .manualCheckIn(let major, let reason, let before):
            return .manualCheckIn(site(major), reason: reason, at: before.map { time.addingTimeInterval(-$0) })
        case .manualCheckOut(let major, let reason, let before):
            return .manualCheckOut(major.map(site), reason: reason, at: before.map { time.addingTimeInterval(-$0) })
        case .location(let state):
            permissions.location = state
            return .permissionsChanged(permissions)
        case .bluetooth(let state):
            permissions.bluetooth = state
            return .permissionsChanged(permissions)
        case .preciseLocation(let on):
            permissions.preciseLocation = on
            return .permissionsChanged(permissions)
        }
    }

    /// iOS reports an entry when a monitored region's beacon is heard while outside, and an
    /// exit `regionExitDelaySeconds` after the last packet.
    private func synthesizeRegionEvents(_ trace: ReplayTrace, regions: [BeaconRegion]) -> [Input] {
        let delay = configuration.regionExitDelaySeconds
        var inputs: [Input] = []
        for region in regions {
            var lastHeard: Date?
            for row in trace.rows {
                guard case .ranging(let time, let samples, _) = row,
                      samples.contains(where: { $0.isHeard && region.contains($0.beacon.site) }) else { continue }
                if let heard = lastHeard, time.timeIntervalSince(heard) > delay {
                    inputs.append(Input(time: heard.addingTimeInterval(delay), priority: 0, sequence: inputs.count, event: .regionExited(region)))
                    lastHeard = nil
                }
                if lastHeard == nil {
                    inputs.append(Input(time: time, priority: 1, sequence: inputs.count, event: .regionEntered(region)))
                }
                lastHeard = time
            }
            if let heard = lastHeard {
                inputs.append(Input(time: heard.addingTimeInterval(delay), priority: 0, sequence: inputs.count, event: .regionExited(region)))
            }
        }
        return inputs
    }
}
