import Foundation

/// What the report's figures were computed from (`attendance simulate --details FILE`): every
/// true presence and, per policy, every session the server recorded, in seconds since the
/// simulation's start. For finding out *which* stays were missed or misdated.
public struct SimulationDetails: Hashable, Sendable, Codable {
    public var truth: [TruePresence]
    public var sessions: [String: [RecordedSession]]
    /// Each employee's location access on the phone (`always`, `whenInUse`, `denied`): without
    /// Always, attendance is by hand, as the app prompts.
    public var locationAccess: [String: String]
    /// Each employee's planned incidents (force-quits, reboots, crashes, network outages), the
    /// same for every policy: what to look at first when a stay was missed.
    public var incidents: [String: [Incident]]

    /// One planned incident on a phone, at `start` (an outage lasts until `end`).
    public struct Incident: Hashable, Sendable, Codable {
        public var kind: String
        public var start: Double
        public var end: Double?

        public init(kind: String, start: Double, end: Double? = nil) {
            self.kind = kind
            self.start = start
            self.end = end
        }
    }

    public init(truth: [TruePresence] = [], sessions: [String: [RecordedSession]] = [:], locationAccess: [String: String] = [:],
                incidents: [String: [Incident]] = [:]) {
        self.truth = truth
        self.sessions = sessions
        self.locationAccess = locationAccess
        self.incidents = incidents
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
