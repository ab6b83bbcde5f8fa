@testable import AttendanceSimulation
import AttendanceModels
import Foundation
import Testing

/// The report's field names are a contract other tools read; the table shows every metric.
@Suite struct SimulationReportTests {
    static func report() -> SimulationReport {
        let score = PresenceScore(truth: [TruePresence(employee: "a", site: "hq", start: 0, end: 3_600)],
                                  sessions: [RecordedSession(employee: "a", site: "hq", checkIn: 10, checkOut: 3_590, checkInDecidedAt: 12)],
                                  horizon: 86_400)
        let policy = PolicyReport(score: score, employeeDays: 2,
                                  delivery: .init(recorded: 4, delivered: 4, lost: 0, duplicates: 0, maxDelaySeconds: 3),
                                  device: .init(rangingSecondsPerDay: MedianAndP95([40]), wakeupsPerDay: MedianAndP95([50]),
                                                bytesPerDay: MedianAndP95([9_000]), awakeSecondsPerDay: MedianAndP95([300]),
                                                backgroundLocationSecondsPerDay: MedianAndP95([60])),
                                  energy: .init(perPhoneDay: [EnergyParts(awake: 2, ranging: 1, backgroundLocation: 0, wakeups: 1,
                                                                          regionMonitoring: 0, network: 4)],
                                                batteryMilliampHours: 3_000))
        return SimulationReport(seed: 1, employees: 1, days: 2, employeeDays: 2, wallSeconds: 0.5, transport: "inprocess",
                                policies: ["default": policy, "naive": policy])
    }

    @Test func theJSONHasTheFixedFieldNames() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Self.report().json()) as? [String: Any])
        #expect(Set(object.keys) == ["seed", "employees", "days", "employeeDays", "wallSeconds", "employeeDaysPerSecond", "transport",
                                     "policies"])
        #expect(object["transport"] as? String == "inprocess")
        #expect(object["employeeDaysPerSecond"] as? Double == 4)
        let policy = try #require((object["policies"] as? [String: Any])?["default"] as? [String: Any])
        #expect(Set(policy.keys) == ["checkIn", "checkOut", "falseCheckOutsPer1000EmployeeDays", "falseCheckInsPer1000EmployeeDays",
                                     "falseCheckOutsPer1000Presences", "falseCheckInsPer1000Presences",
                                     "workedMinutesError", "delivery", "device", "energy", "cutBySuspension"])
        let checkIn = try #require(policy["checkIn"] as? [String: Any])
        #expect(Set(checkIn.keys) == ["timestampErrorSeconds", "decisionLatencySeconds", "decisionLatencyAlwaysSeconds", "missedPresences",
                                      "missedByCause", "missedAlwaysNotForceQuit"])
        #expect(Set((checkIn["missedByCause"] as? [String: Any])?.keys ?? [:].keys) == ["manual", "forceQuit", "wrongSite", "other"])
        let energy = try #require(policy["energy"] as? [String: Any])
        #expect(Set(energy.keys) == ["milliampHoursPerDay", "batteryPercentPerDay", "meanParts"])
        #expect(Set((energy["meanParts"] as? [String: Any])?.keys ?? [:].keys)
            == ["awake", "ranging", "backgroundLocation", "wakeups", "regionMonitoring", "network"])
        #expect(Set((checkIn["timestampErrorSeconds"] as? [String: Any])?.keys ?? [:].keys) == ["p50", "p95", "p99", "max"])
        #expect(Set((policy["delivery"] as? [String: Any])?.keys ?? [:].keys) == ["recorded", "delivered", "lost", "duplicates", "maxDelaySeconds"])
        let device = try #require(policy["device"] as? [String: Any])
        #expect(Set(device.keys) == ["rangingSecondsPerDay", "wakeupsPerDay", "bytesPerDay", "awakeSecondsPerDay",
                                     "backgroundLocationSecondsPerDay"])
        #expect(Set((device["bytesPerDay"] as? [String: Any])?.keys ?? [:].keys) == ["p50", "p95"])
        #expect(Set((policy["workedMinutesError"] as? [String: Any])?.keys ?? [:].keys) == ["p50", "p95"])
        // Same report, same bytes.
        #expect(try Self.report().json() == Self.report().json())
    }

    @Test func theTableHasEveryMetricWithThePoliciesSideBySide() throws {
        let table = ReportTable.render(Self.report())
        let lines = table.split(separator: "\n")
        // The header row: ours first, then the baseline.
        let header = try #require(lines.first { $0.contains("default") })
        #expect(header.range(of: "default")!.lowerBound < header.range(of: "naive")!.lowerBound)
        for metric in ["check-in error", "decision latency", "missed presences", "check-out error", "false check-outs", "false check-ins",
                       "worked-minutes error", "lost / duplicated", "max delivery delay", "ranging seconds/day", "wake-ups/day", "bytes/day",
                       "missed: manual / force-quit / wrong site / other", "awake seconds/day", "background location seconds/day",
                       "energy mAh/day", "energy % of battery/day", "decisions cut by suspension"] {
            #expect(table.contains(metric))
        }
        #expect(table.contains("10.0 s / 10.0 s / 10.0 s / 10.0 s"))
        #expect(table.hasPrefix("1 employees × 2 days (2 employee-days), seed 1"))
        // 8 mAh a phone-day is 0.27 % of 3,000 mAh.
        #expect(table.contains("8.0 / 8.0"))
        #expect(table.contains("0.27 / 0.27 %"))
    }
}
