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

    public init(truth: [TruePresence] = [], sessions: [String: [RecordedSession]] = [:], locationAccess: [String: String] = [:]) {
        self.truth = truth
        self.sessions = sessions
        self.locationAccess = locationAccess
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
