import AttendanceModels
import Foundation

/// Recorded sessions scored against the ground truth, with the rules of docs/ARCHITECTURE.md ("How it is evaluated") made exact:
///
/// - A true presence of at least `minimumPresenceSeconds` (10 min) must be covered by a session of
///   the same person at the same site; one that is not is a **missed presence**. Shorter stays
///   (a walk-in to drop something off) may be recorded or not without penalty.
/// - For a covered presence, the **check-in error** is |first session's check-in − true arrival|,
///   its **decision latency** the moment that check-in was durable on the phone − true arrival,
///   and the **check-out error** |last session's check-out − true departure| (absolute values:
///   early and late are both wrong).
/// - A **false check-out** is a check-out of a session covering a presence while the person stays
///   at least `falseCheckOutMarginSeconds` (5 min) longer: a split session, or an early end.
/// - A **false check-in** is a session less than half of whose time overlaps the person's true
///   presences at that site (a walk-by, a neighbouring site heard through a wall).
/// - The **worked-minutes error** of an employee-day is |recorded minutes − true minutes| that day
///   (sessions and presences clipped to the day), over the days either has any.
public struct PresenceScore: Hashable, Sendable, Codable {
    public static let minimumPresenceSeconds: Double = 600
    public static let falseCheckOutMarginSeconds: Double = 300

    public var checkInErrors: [Double] = []
    public var decisionLatencies: [Double] = []
    public var checkOutErrors: [Double] = []
    public var missedPresences = 0
    /// The true presences scored (at least `minimumPresenceSeconds`).
    public var presencesScored = 0
    /// The presences missed, for finding out why (`MissedCause`).
    public var missed: [TruePresence] = []
    /// Each employee's decision latencies (the same values as `decisionLatencies`).
    public var decisionLatenciesByEmployee: [UserID: [Double]] = [:]
    public var falseCheckOuts = 0
    public var falseCheckIns = 0
    public var workedMinutesErrors: [Double] = []

    /// Scores `sessions` against `truth` over `[0, horizon)` cut into days of `daySeconds`.
    public init(truth: [TruePresence], sessions: [RecordedSession], horizon: Double, daySeconds: Double = 86_400) {
        struct Key: Hashable { var employee: UserID; var site: SiteID }
        let truthByKey = Dictionary(grouping: truth, by: { Key(employee: $0.employee, site: $0.site) })
        let sessionsByKey = Dictionary(grouping: sessions, by: { Key(employee: $0.employee, site: $0.site) })

        for (key, presences) in truthByKey {
            let own = (sessionsByKey[key] ?? []).sorted { $0.checkIn < $1.checkIn }
            for presence in presences where presence.duration >= Self.minimumPresenceSeconds {
                presencesScored += 1
                let covering = own.filter { $0.checkIn < presence.end && $0.end(horizon: horizon) > presence.start }
                guard let first = covering.first, let last = covering.last else {
                    missedPresences += 1
                    missed.append(presence)
                    continue
                }
                checkInErrors.append(abs(first.checkIn - presence.start))
                decisionLatencies.append(max(0, first.checkInDecidedAt - presence.start))
                decisionLatenciesByEmployee[key.employee, default: []].append(max(0, first.checkInDecidedAt - presence.start))
                if let checkOut = last.checkOut { checkOutErrors.append(abs(checkOut - presence.end)) }
                falseCheckOuts += covering.filter { session in
                    guard let checkOut = session.checkOut else { return false }
                    return checkOut >= presence.start && presence.end - checkOut >= Self.falseCheckOutMarginSeconds
                }.count
            }
        }
        for (key, own) in sessionsByKey {
            let presences = truthByKey[key] ?? []
            for session in own {
                let end = session.end(horizon: horizon)
                let length = end - session.checkIn
                let overlap = presences.reduce(0) { $0 + Self.overlap(session.checkIn, end, $1.start, $1.end) }
                let isFalse = length > 0 ? overlap < length / 2
                    : !presences.contains { $0.start <= session.checkIn && session.checkIn <= $0.end }
                if isFalse { falseCheckIns += 1 }
            }
        }
        workedMinutesErrors = Self.workedMinutesErrors(truth: truth, sessions: sessions, horizon: horizon, daySeconds: daySeconds)
    }

    static func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double { max(0, min(a1, b1) - max(a0, b0)) }

    private static func workedMinutesErrors(truth: [TruePresence], sessions: [RecordedSession], horizon: Double, daySeconds: Double) -> [Double] {
        struct Day: Hashable { var employee: UserID; var index: Int }
        var trueSeconds: [Day: Double] = [:]
        var recordedSeconds: [Day: Double] = [:]
        func spread(_ employee: UserID, _ start: Double, _ end: Double, into table: inout [Day: Double]) {
            guard end > start else { return }
            var day = Int((start / daySeconds).rounded(.down))
            while Double(day) * daySeconds < end {
                let seconds = overlap(start, end, Double(day) * daySeconds, Double(day + 1) * daySeconds)
                if seconds > 0 { table[Day(employee: employee, index: day), default: 0] += seconds }
                day += 1
            }
        }
        for presence in truth { spread(presence.employee, presence.start, presence.end, into: &trueSeconds) }
        for session in sessions { spread(session.employee, session.checkIn, session.end(horizon: horizon), into: &recordedSeconds) }
        let days = Set(trueSeconds.keys).union(recordedSeconds.keys)
        return days.map { abs((recordedSeconds[$0] ?? 0) - (trueSeconds[$0] ?? 0)) / 60 }
    }
}
