import Foundation

/// The `hindsight` policy's estimator: a hidden Markov model over presence states (away, or at
/// site s) crossed with the receiver's state (hearing, or in a scan silence), decoded over a
/// phone's whole run at once with the Viterbi algorithm (the most probable sequence of states
/// given every second, before and after).
///
/// - Emissions: each second, every site's loudest beacon is scored against the state's
///   `HindsightModel.Emission` (nothing heard, or an RSSI); in a scan silence nothing is heard at
///   all, so a silence inside a stay costs the stay little.
/// - Transitions: the presence state changes only in walking seconds (with
///   `switchWhileWalking` to each other state); standing still, it cannot. The receiver falls
///   silent and recovers as the world's scan silences do.
/// - Sessions: maximal runs of one site of at least `minimumSessionSeconds`; runs of one site
///   separated by less than that are one session. Check-in and check-out are dated at the
///   decoded transitions.
///
/// Pure and deterministic: the same recording gives the same sessions.
public struct HindsightEstimator: Sendable {
    /// One decoded session: the site, the first second at it and the first second after it
    /// (nil: still there when the recording ends).
    public struct Session: Hashable, Sendable {
        public var siteIndex: Int
        public var start: Int
        public var end: Int?
    }

    public let model: HindsightModel
    /// `emission[presence][site][rssi + 128]`, index 128 for nothing heard: log-likelihoods.
    private let emission: [[[Double]]]

    public init(model: HindsightModel) {
        self.model = model
        emission = ([model.away] + model.atSite).map { (row: [HindsightModel.Emission]) -> [[Double]] in
            row.map { (site: HindsightModel.Emission) -> [Double] in
                (0...128).map { (index: Int) -> Double in site.logLikelihood(index == 128 ? nil : index - 128) }
            }
        }
    }

    /// The most probable presence in every second: 0 away, s + 1 at site s.
    public func presence(_ recording: HindsightRecording) -> [Int] {
        let presences = model.sites + 1
        let states = presences * 2
        let count = recording.seconds
        guard count > 0 else { return [] }
        let still = transitions(walking: false)
        let walking = transitions(walking: true)
        var back = [UInt8](repeating: 0, count: count * states)
        var observed = [Double](repeating: 0, count: states)
        emissions(recording, second: 0, into: &observed)
        var score = observed.enumerated().map { state, value in
            value + (state % 2 == 1 ? log(model.silenceStart) : log(1 - model.silenceStart))
        }
        var next = score
        for second in 1..<count {
            let table = recording.walking(second: second) ? walking : still
            emissions(recording, second: second, into: &observed)
            for target in 0..<states {
                var best = -Double.infinity
                var from = 0
                for source in 0..<states {
                    let value = score[source] + table[source][target]
                    if value > best {
                        best = value
                        from = source
                    }
                }
                next[target] = best + observed[target]
                back[second * states + target] = UInt8(from)
            }
            swap(&score, &next)
        }
        var state = score.indices.max { score[$0] < score[$1] } ?? 0
        var path = [Int](repeating: 0, count: count)
        for second in stride(from: count - 1, through: 0, by: -1) {
            path[second] = state / 2
            state = Int(back[second * states + state])
        }
        return path
    }

    /// The sessions of a recording.
    public func sessions(_ recording: HindsightRecording) -> [Session] {
        sessions(presence: presence(recording))
    }

    /// Runs of one site of at least `minimumSessionSeconds`, joined across shorter gaps.
    public func sessions(presence: [Int]) -> [Session] {
        guard !presence.isEmpty else { return [] }
        var runs: [Session] = []
        var start = 0
        for second in 1...presence.count where second == presence.count || presence[second] != presence[start] {
            if presence[start] > 0 {
                runs.append(Session(siteIndex: presence[start] - 1, start: start, end: second))
            }
            start = second
        }
        let minimum = Int(model.minimumSessionSeconds.rounded(.up))
        var kept: [Session] = []
        for run in runs where (run.end ?? presence.count) - run.start >= minimum {
            if let last = kept.last, last.siteIndex == run.siteIndex, run.start - (last.end ?? run.start) < minimum {
                kept[kept.count - 1].end = run.end
            } else {
                kept.append(run)
            }
        }
        return kept.map { session in
            var session = session
            if session.end == presence.count { session.end = nil }
            return session
        }
    }

    /// The sessions as check-ins and check-outs in time order (a check-out before a check-in at
    /// the same second), all decided at `decidedAt`: the policy is offline.
    public func decisions(_ recording: HindsightRecording, decidedAt: Double) -> [PolicyDecision] {
        var decisions: [PolicyDecision] = []
        for session in sessions(recording) {
            decisions.append(
                PolicyDecision(
                    kind: .checkIn, siteIndex: session.siteIndex, ts: Double(session.start), decidedAt: decidedAt))
            if let end = session.end {
                decisions.append(
                    PolicyDecision(kind: .checkOut, siteIndex: session.siteIndex, ts: Double(end), decidedAt: decidedAt)
                )
            }
        }
        return decisions.sorted { ($0.ts, $0.kind == .checkIn ? 1 : 0) < ($1.ts, $1.kind == .checkIn ? 1 : 0) }
    }

    /// Log-likelihood of one second in every state (presence * 2 + silent), into `values`.
    private func emissions(_ recording: HindsightRecording, second: Int, into values: inout [Double]) {
        var heardAny = false
        for presence in 0...model.sites { values[presence * 2] = 0 }
        for site in 0..<model.sites {
            let reading = recording.loudest(second: second, site: site)
            if reading != nil { heardAny = true }
            let index = reading.map { min(127, max(0, $0 + 128)) } ?? 128
            for presence in 0...model.sites { values[presence * 2] += emission[presence][site][index] }
        }
        // Away is near a site (the band's emissions) or far, where nothing at all is heard.
        let near = log(model.awayNearShare) + values[0]
        values[0] = heardAny ? near : logSum(near, log(1 - model.awayNearShare))
        // In a scan silence nothing at all is heard.
        for presence in 0...model.sites { values[presence * 2 + 1] = heardAny ? -Double.infinity : 0 }
    }

    private func logSum(_ a: Double, _ b: Double) -> Double {
        guard a.isFinite || b.isFinite else { return -Double.infinity }
        let high = max(a, b)
        return high + log(exp(a - high) + exp(b - high))
    }

    /// Log transition probabilities between states (presence * 2 + silent), walking or not.
    private func transitions(walking: Bool) -> [[Double]] {
        let presences = model.sites + 1
        let change = walking ? model.switchWhileWalking : 0
        let stay = log(max(1e-12, 1 - change * Double(presences - 1)))
        let silence = [
            [log(1 - model.silenceStart), log(model.silenceStart)],
            [log(model.silenceEnd), log(1 - model.silenceEnd)],
        ]
        return (0..<(presences * 2)).map { source in
            (0..<(presences * 2)).map { target in
                let presence = source / 2 == target / 2 ? stay : (change > 0 ? log(change) : -Double.infinity)
                return presence + silence[source % 2][target % 2]
            }
        }
    }
}
