import Foundation

/// The report `attendance simulate --json` prints. The field names are fixed by issue #5 (other
/// tools read them); keys are sorted, so the same seed gives the same bytes apart from
/// `wallSeconds` and `employeeDaysPerSecond`.
public struct SimulationReport: Hashable, Sendable, Codable {
    public var seed: UInt64
    public var employees: Int
    public var days: Int
    public var employeeDays: Int
    public var wallSeconds: Double
    public var employeeDaysPerSecond: Double
    /// How the phones reached the server: `http` (loopback or `--server`) or `inprocess`.
    public var transport: String
    public var policies: [String: PolicyReport]
    /// How often each injected fault struck our policy's phones (beyond the fixed schema: a
    /// check that every fault was exercised). Absent when `default` did not run.
    public var faults: FaultCounts?
    /// The truth and the recorded sessions behind the figures (`--details`); never in the JSON report.
    public var details = SimulationDetails()

    private enum CodingKeys: String, CodingKey {
        case seed, employees, days, employeeDays, wallSeconds, employeeDaysPerSecond, transport, policies, faults
    }

    public init(seed: UInt64, employees: Int, days: Int, employeeDays: Int, wallSeconds: Double, transport: String = "http",
                policies: [String: PolicyReport]) {
        self.transport = transport
        self.seed = seed
        self.employees = employees
        self.days = days
        self.employeeDays = employeeDays
        self.wallSeconds = wallSeconds
        employeeDaysPerSecond = wallSeconds > 0 ? Double(employeeDays) / wallSeconds : 0
        self.policies = policies
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

public struct PolicyReport: Hashable, Sendable, Codable {
    public struct CheckIn: Hashable, Sendable, Codable {
        public var timestampErrorSeconds: Percentiles
        /// Absent for an offline policy (`hindsight` decides after the run).
        public var decisionLatencySeconds: Percentiles?
        /// Decision latency of the employees with Always access (the others tap by hand).
        public var decisionLatencyAlwaysSeconds: Percentiles?
        public var missedPresences: Int
        /// The missed presences by cause (`MissedCause`: manual, forceQuit, wrongSite, other).
        public var missedByCause: [String: Int]
        /// Missed presences of employees with Always access whose app was not force-quit.
        public var missedAlwaysNotForceQuit: Int
    }

    public struct CheckOut: Hashable, Sendable, Codable {
        public var timestampErrorSeconds: Percentiles
    }

    public struct Delivery: Hashable, Sendable, Codable {
        /// Events committed to the phones' outboxes.
        public var recorded: Int
        /// Of those, the ones the server holds.
        public var delivered: Int
        /// Recorded, not delivered by the end (after the final drain).
        public var lost: Int
        /// Events the server applied more than once (processing, not replaying, a key again).
        public var duplicates: Int
        /// The longest time from an event's commit on the phone to its acceptance by the server.
        public var maxDelaySeconds: Double

        public init(recorded: Int, delivered: Int, lost: Int, duplicates: Int, maxDelaySeconds: Double) {
            self.recorded = recorded
            self.delivered = delivered
            self.lost = lost
            self.duplicates = duplicates
            self.maxDelaySeconds = maxDelaySeconds
        }
    }

    public struct Device: Hashable, Sendable, Codable {
        public var rangingSecondsPerDay: MedianAndP95
        public var wakeupsPerDay: MedianAndP95
        public var bytesPerDay: MedianAndP95
        /// Seconds the app had execution time in the background, and of those, kept running by
        /// background location updates.
        public var awakeSecondsPerDay: MedianAndP95
        public var backgroundLocationSecondsPerDay: MedianAndP95

        public init(rangingSecondsPerDay: MedianAndP95, wakeupsPerDay: MedianAndP95, bytesPerDay: MedianAndP95,
                    awakeSecondsPerDay: MedianAndP95, backgroundLocationSecondsPerDay: MedianAndP95) {
            self.rangingSecondsPerDay = rangingSecondsPerDay
            self.wakeupsPerDay = wakeupsPerDay
            self.bytesPerDay = bytesPerDay
            self.awakeSecondsPerDay = awakeSecondsPerDay
            self.backgroundLocationSecondsPerDay = backgroundLocationSecondsPerDay
        }
    }

    /// The energy model's charge per phone-day (`EnergySpec`).
    public struct Energy: Hashable, Sendable, Codable {
        public var milliampHoursPerDay: MedianAndP95
        /// The same as a share of the battery, in percent.
        public var batteryPercentPerDay: MedianAndP95
        /// The mean phone-day, by part (mAh).
        public var meanParts: EnergyParts

        public init(perPhoneDay: [EnergyParts], batteryMilliampHours: Double) {
            let totals = perPhoneDay.map(\.total)
            milliampHoursPerDay = MedianAndP95(totals)
            batteryPercentPerDay = MedianAndP95(totals.map { $0 / batteryMilliampHours * 100 })
            let count = Double(max(perPhoneDay.count, 1))
            func mean(_ part: KeyPath<EnergyParts, Double>) -> Double { perPhoneDay.reduce(0) { $0 + $1[keyPath: part] } / count }
            meanParts = EnergyParts(awake: mean(\.awake), ranging: mean(\.ranging), backgroundLocation: mean(\.backgroundLocation),
                                    wakeups: mean(\.wakeups), regionMonitoring: mean(\.regionMonitoring), network: mean(\.network))
        }
    }

    public var checkIn: CheckIn
    public var checkOut: CheckOut
    public var falseCheckOutsPer1000EmployeeDays: Double
    public var falseCheckInsPer1000EmployeeDays: Double
    public var falseCheckOutsPer1000Presences: Double
    public var falseCheckInsPer1000Presences: Double
    public var workedMinutesError: MedianAndP95
    public var delivery: Delivery
    /// Absent for an offline policy, which runs on no phone (also `energy` and `cutBySuspension`).
    public var device: Device?
    public var energy: Energy?
    /// Decisions still under way, or work still running, when iOS's background time ran out.
    public var cutBySuspension: Int?

    /// What scoring found beyond the score itself.
    public struct Findings: Hashable, Sendable {
        public var decisionLatenciesAlways: [Double] = []
        public var missedByCause: [MissedCause: Int] = [:]
        public var missedAlwaysNotForceQuit = 0
        public var cutBySuspension = 0

        public init() {}
    }

    /// The report of one policy from its score over `employeeDays` simulated employee-days.
    /// `offline`: the policy decided after the run, so it has no decision latency nor suspension.
    public init(score: PresenceScore, employeeDays: Int, delivery: Delivery, device: Device?, energy: Energy?,
                findings: Findings = Findings(), offline: Bool = false) {
        let causes = Dictionary(uniqueKeysWithValues: MissedCause.allCases.map { ($0.rawValue, findings.missedByCause[$0] ?? 0) })
        checkIn = CheckIn(timestampErrorSeconds: Percentiles(score.checkInErrors),
                          decisionLatencySeconds: offline ? nil : Percentiles(score.decisionLatencies),
                          decisionLatencyAlwaysSeconds: offline ? nil : Percentiles(findings.decisionLatenciesAlways),
                          missedPresences: score.missedPresences, missedByCause: causes,
                          missedAlwaysNotForceQuit: findings.missedAlwaysNotForceQuit)
        self.energy = energy
        cutBySuspension = offline ? nil : findings.cutBySuspension
        checkOut = CheckOut(timestampErrorSeconds: Percentiles(score.checkOutErrors))
        let perThousand = employeeDays > 0 ? 1_000 / Double(employeeDays) : 0
        falseCheckOutsPer1000EmployeeDays = Double(score.falseCheckOuts) * perThousand
        falseCheckInsPer1000EmployeeDays = Double(score.falseCheckIns) * perThousand
        let perThousandPresences = score.presencesScored > 0 ? 1_000 / Double(score.presencesScored) : 0
        falseCheckOutsPer1000Presences = Double(score.falseCheckOuts) * perThousandPresences
        falseCheckInsPer1000Presences = Double(score.falseCheckIns) * perThousandPresences
        workedMinutesError = MedianAndP95(score.workedMinutesErrors)
        self.delivery = delivery
        self.device = device
    }
}
