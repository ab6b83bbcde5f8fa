import AttendanceModels
import Foundation

/// Why a true presence was missed, as far as the plan tells: the employee checks in by hand (no
/// Always access), the app was force-quit (from 24 h before the stay to its end, since a force-
/// quit app stays silent until it is opened), the person was recorded at another site for most of
/// the stay, or none of these.
public enum MissedCause: String, Hashable, Sendable, Codable, CaseIterable {
    case manual, forceQuit, wrongSite, other

    /// How long before a stay a force-quit still counts as its cause.
    public static let forceQuitReachSeconds = 86_400.0

    public static func of(
        _ presence: TruePresence, access: PhonePlan.LocationAccess, forceQuits: [Double],
        sessions: [RecordedSession], horizon: Double
    ) -> MissedCause {
        if access != .always { return .manual }
        if forceQuitReaches(presence, forceQuits: forceQuits) { return .forceQuit }
        let elsewhere = sessions.filter { $0.employee == presence.employee && $0.site != presence.site }.reduce(0.0) {
            $0 + PresenceScore.overlap($1.checkIn, $1.end(horizon: horizon), presence.start, presence.end)
        }
        return elsewhere >= presence.duration / 2 ? .wrongSite : .other
    }

    /// Whether one of `forceQuits` falls from `forceQuitReachSeconds` before the stay to its end.
    public static func forceQuitReaches(_ presence: TruePresence, forceQuits: [Double]) -> Bool {
        forceQuits.contains { $0 <= presence.end && $0 >= presence.start - forceQuitReachSeconds }
    }
}
