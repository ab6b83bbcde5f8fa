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
    public var policies: [String: PolicyReport]
    /// How often each injected fault struck our policy's phones (beyond the fixed schema: a
    /// check that every fault was exercised). Absent when `default` did not run.
    public var faults: FaultCounts?
    /// The truth and the recorded sessions behind the figures (`--details`); never in the JSON report.
    public var details = SimulationDetails()

    private enum CodingKeys: String, CodingKey {
        case seed, employees, days, employeeDays, wallSeconds, employeeDaysPerSecond, policies, faults
    }

    public init(seed: UInt64, employees: Int, days: Int, employeeDays: Int, wallSeconds: Double, policies: [String: PolicyReport]) {
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
        public var decisionLatencySeconds: Percentiles
        public var missedPresences: Int
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

        public init(rangingSecondsPerDay: MedianAndP95, wakeupsPerDay: MedianAndP95, bytesPerDay: MedianAndP95) {
            self.rangingSecondsPerDay = rangingSecondsPerDay
            self.wakeupsPerDay = wakeupsPerDay
            self.bytesPerDay = bytesPerDay
        }
    }

    public var checkIn: CheckIn
    public var checkOut: CheckOut
    public var falseCheckOutsPer1000EmployeeDays: Double
    public var falseCheckInsPer1000EmployeeDays: Double
    public var workedMinutesError: MedianAndP95
    public var delivery: Delivery
    public var device: Device

    /// The report of one policy from its score over `employeeDays` simulated employee-days.
    public init(score: PresenceScore, employeeDays: Int, delivery: Delivery, device: Device) {
        checkIn = CheckIn(timestampErrorSeconds: Percentiles(score.checkInErrors), decisionLatencySeconds: Percentiles(score.decisionLatencies),
                          missedPresences: score.missedPresences)
        checkOut = CheckOut(timestampErrorSeconds: Percentiles(score.checkOutErrors))
        let perThousand = employeeDays > 0 ? 1_000 / Double(employeeDays) : 0
        falseCheckOutsPer1000EmployeeDays = Double(score.falseCheckOuts) * perThousand
        falseCheckInsPer1000EmployeeDays = Double(score.falseCheckIns) * perThousand
        workedMinutesError = MedianAndP95(score.workedMinutesErrors)
        self.delivery = delivery
        self.device = device
    }
}
