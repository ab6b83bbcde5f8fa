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
                                  device: .init(rangingSecondsPerDay: MedianAndP95([40]), wakeupsPerDay: MedianAndP95([50]), bytesPerDay: MedianAndP95([9_000])))
        return SimulationReport(seed: 1, employees: 1, days: 2, employeeDays: 2, wallSeconds: 0.5, policies: ["default": policy, "naive": policy])
    }

    @Test func theJSONHasTheFixedFieldNames() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Self.report().json()) as? [String: Any])
        #expect(Set(object.keys) == ["seed", "employees", "days", "employeeDays", "wallSeconds", "employeeDaysPerSecond", "policies"])
        #expect(object["employeeDaysPerSecond"] as? Double == 4)
        let policy = try #require((object["policies"] as? [String: Any])?["default"] as? [String: Any])
        #expect(Set(policy.keys) == ["checkIn", "checkOut", "falseCheckOutsPer1000EmployeeDays", "falseCheckInsPer1000EmployeeDays",
                                     "workedMinutesError", "delivery", "device"])
        let checkIn = try #require(policy["checkIn"] as? [String: Any])
        #expect(Set(checkIn.keys) == ["timestampErrorSeconds", "decisionLatencySeconds", "missedPresences"])
        #expect(Set((checkIn["timestampErrorSeconds"] as? [String: Any])?.keys ?? [:].keys) == ["p50", "p95", "p99", "max"])
        #expect(Set((policy["delivery"] as? [String: Any])?.keys ?? [:].keys) == ["recorded", "delivered", "lost", "duplicates", "maxDelaySeconds"])
        let device = try #require(policy["device"] as? [String: Any])
        #expect(Set(device.keys) == ["rangingSecondsPerDay", "wakeupsPerDay", "bytesPerDay"])
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
                       "worked-minutes error", "lost / duplicated", "max delivery delay", "ranging seconds/day", "wake-ups/day", "bytes/day"] {
            #expect(table.contains(metric))
        }
        #expect(table.contains("10.0 s / 10.0 s / 10.0 s / 10.0 s"))
        #expect(table.hasPrefix("1 employees × 2 days (2 employee-days), seed 1"))
    }
}
