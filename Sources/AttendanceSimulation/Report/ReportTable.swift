import Foundation

/// The report as a readable table, the policies side by side (what a terminal shows).
public enum ReportTable {
    public static func render(_ report: SimulationReport) -> String {
        let policies = report.policies.keys.sorted { order($0) < order($1) }
        var rows: [(String, [String])] = []
        func row(_ name: String, _ value: (PolicyReport) -> String) {
            rows.append((name, policies.map { report.policies[$0].map(value) ?? "" }))
        }
        func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
        func p(_ percentiles: Percentiles) -> String {
            "\(seconds(percentiles.p50)) / \(seconds(percentiles.p95)) / \(seconds(percentiles.p99)) / \(seconds(percentiles.max))"
        }
        // An offline policy (hindsight) has no latency and runs on no phone: no figure, not a zero.
        let offline = "offline"
        func device(_ name: String, _ value: (PolicyReport.Device) -> String) {
            row(name) { $0.device.map(value) ?? offline }
        }
        func energy(_ name: String, _ value: (PolicyReport.Energy) -> String) {
            row(name) { $0.energy.map(value) ?? offline }
        }
        row("check-in error p50/p95/p99/max") { p($0.checkIn.timestampErrorSeconds) }
        row("check-in decision latency p50/p95/p99/max") { $0.checkIn.decisionLatencySeconds.map(p) ?? offline }
        row("decision latency, Always access, p50/p95") {
            $0.checkIn.decisionLatencyAlwaysSeconds.map { "\(seconds($0.p50)) / \(seconds($0.p95))" } ?? offline
        }
        row("missed presences") { "\($0.checkIn.missedPresences)" }
        row("missed: manual / force-quit / wrong site / other") { report in
            MissedCause.allCases.map { "\(report.checkIn.missedByCause[$0.rawValue] ?? 0)" }.joined(separator: " / ")
        }
        row("missed, Always access, not force-quit") { "\($0.checkIn.missedAlwaysNotForceQuit)" }
        row("check-out error p50/p95/p99/max") { p($0.checkOut.timestampErrorSeconds) }
        row("false check-outs per 1,000 employee-days") { String(format: "%.2f", $0.falseCheckOutsPer1000EmployeeDays) }
        row("false check-ins per 1,000 employee-days") { String(format: "%.2f", $0.falseCheckInsPer1000EmployeeDays) }
        row("false check-ins / check-outs per 1,000 presences") {
            String(format: "%.2f / %.2f", $0.falseCheckInsPer1000Presences, $0.falseCheckOutsPer1000Presences)
        }
        row("worked-minutes error p50/p95") { String(format: "%.1f / %.1f min", $0.workedMinutesError.p50, $0.workedMinutesError.p95) }
        row("events recorded / delivered") { "\($0.delivery.recorded) / \($0.delivery.delivered)" }
        row("events lost / duplicated") { "\($0.delivery.lost) / \($0.delivery.duplicates)" }
        row("max delivery delay") { seconds($0.delivery.maxDelaySeconds) }
        device("ranging seconds/day p50/p95") { String(format: "%.0f / %.0f", $0.rangingSecondsPerDay.p50, $0.rangingSecondsPerDay.p95) }
        device("wake-ups/day p50/p95") { String(format: "%.0f / %.0f", $0.wakeupsPerDay.p50, $0.wakeupsPerDay.p95) }
        device("bytes/day p50/p95") { String(format: "%.0f / %.0f", $0.bytesPerDay.p50, $0.bytesPerDay.p95) }
        device("awake seconds/day p50/p95") { String(format: "%.0f / %.0f", $0.awakeSecondsPerDay.p50, $0.awakeSecondsPerDay.p95) }
        device("background location seconds/day p50/p95") {
            String(format: "%.0f / %.0f", $0.backgroundLocationSecondsPerDay.p50, $0.backgroundLocationSecondsPerDay.p95)
        }
        energy("energy mAh/day p50/p95") { String(format: "%.1f / %.1f", $0.milliampHoursPerDay.p50, $0.milliampHoursPerDay.p95) }
        energy("energy % of battery/day p50/p95") {
            String(format: "%.2f / %.2f %%", $0.batteryPercentPerDay.p50, $0.batteryPercentPerDay.p95)
        }
        row("decisions cut by suspension") { $0.cutBySuspension.map { "\($0)" } ?? offline }

        let nameWidth = rows.map(\.0.count).max() ?? 0
        let widths = policies.indices.map { column in max(policies[column].count, rows.map { $0.1[column].count }.max() ?? 0) }
        func line(_ name: String, _ cells: [String]) -> String {
            ([name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)]
                + cells.enumerated().map { String(repeating: " ", count: widths[$0.offset] - $0.element.count) + $0.element })
                .joined(separator: "  ")
        }
        var text = "\(report.employees) employees × \(report.days) days (\(report.employeeDays) employee-days), seed \(report.seed), "
            + String(format: "%.1f s (%.1f employee-days/s, transport ", report.wallSeconds, report.employeeDaysPerSecond)
            + report.transport + ")\n\n"
        text += line("", policies) + "\n"
        for (name, cells) in rows { text += line(name, cells) + "\n" }
        return text
    }

    /// Ours first, then the baselines, then the offline bound.
    private static func order(_ policy: String) -> Int {
        ["default": 0, "naive": 1, "altbeacon": 2, "hindsight": 3][policy] ?? 4
    }
}
