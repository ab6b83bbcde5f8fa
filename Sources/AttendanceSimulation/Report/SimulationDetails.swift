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
    /// Each employee's desk and what it hears on average: the first thing to look at when a stay
    /// was recorded at the site next door.
    public var desks: [String: Desk]

    /// Where an employee sits, and the mean RSSI there (no shadowing, fading or body loss) of
    /// the loudest beacon of their own site and of the loudest of any other site of the same
    /// UUID (`nil`: none is within hearing).
    public struct Desk: Hashable, Sendable, Codable {
        public var site: String
        public var xMeters: Double
        public var yMeters: Double
        public var ownDBm: Double
        public var neighbourDBm: Double?

        public init(site: String, xMeters: Double, yMeters: Double, ownDBm: Double, neighbourDBm: Double?) {
            self.site = site
            self.xMeters = xMeters
            self.yMeters = yMeters
            self.ownDBm = ownDBm
            self.neighbourDBm = neighbourDBm
        }
    }

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
                incidents: [String: [Incident]] = [:], desks: [String: Desk] = [:]) {
        self.truth = truth
        self.sessions = sessions
        self.locationAccess = locationAccess
        self.incidents = incidents
        self.desks = desks
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
