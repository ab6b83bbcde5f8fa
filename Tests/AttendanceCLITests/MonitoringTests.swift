import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The Prometheus rules and the Grafana dashboard in `deploy/` (docs/OPERATIONS.md, "Monitoring"),
/// held to a real server's `/metrics` and a real backup's metrics file with promtool (Debian's
/// `prometheus` package, which .ci/run installs).
@Suite struct MonitoringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let rules = root.appendingPathComponent("deploy/prometheus/attendance-rules.yml")
    static let dashboard = root.appendingPathComponent("deploy/grafana/attendance-dashboard.json")

    static func promtool(_ arguments: [String], input: String? = nil) async throws -> ChildProcess.Finished {
        try await ChildProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["promtool"] + arguments, standardInput: input
        ).finish()
    }

    /// The metric names an expression reads: words with an underscore that are not a function
    /// (followed by a parenthesis), outside quotes and `by (…)` lists. Our label names have none.
    static func metricNames(in expression: String) -> Set<String> {
        var text = expression.replacingOccurrences(of: #""[^"]*""#, with: "", options: .regularExpression)
        text = text.replacingOccurrences(of: #"by\s*\([^)]*\)"#, with: "", options: .regularExpression)
        let pattern = try! NSRegularExpression(pattern: #"[a-zA-Z_:][a-zA-Z0-9_:]*"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            pattern.matches(in: text, range: range).compactMap { match -> String? in
                let word = String(text[Range(match.range, in: text)!])
                guard word.contains("_"), let end = Range(match.range, in: text)?.upperBound else { return nil }
                // A function's name, followed by its parenthesis: not a metric.
                let rest = text[end...].drop { $0 == " " }
                return rest.first == "(" ? nil : word
            })
    }

    /// Every `expr:` of the rules file (a block scalar's lines joined).
    static func ruleExpressions() throws -> [String] {
        var expressions: [String] = []
        var block: [String]?
        for line in try String(contentsOf: rules, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var open = block {
                if line.hasPrefix("          ") {
                    open.append(trimmed)
                    block = open
                    continue
                }
                expressions.append(open.joined(separator: " "))
                block = nil
            }
            if trimmed == "expr: |" {
                block = []
            } else if trimmed.hasPrefix("expr: ") {
                expressions.append(String(trimmed.dropFirst("expr: ".count)))
            }
        }
        if let open = block { expressions.append(open.joined(separator: " ")) }
        return expressions
    }

    static func dashboardExpressions() throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)) as? [String: Any] ?? [:]
        let panels = object["panels"] as? [[String: Any]] ?? []
        return panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
    }

    @Test func theAlertRulesAreValidAndFireWhenTheyShould() async throws {
        let checked = try await Self.promtool(["check", "rules", Self.rules.path])
        #expect(checked.status == 0, "\(checked.stdout)\n\(checked.stderr)")
        #expect(checked.stdout.contains("SUCCESS: 8 rules found"))
        let tested = try await Self.promtool([
            "test", "rules", Self.root.appendingPathComponent("deploy/prometheus/attendance-rules-test.yml").path,
        ])
        #expect(tested.status == 0, "\(tested.stdout)\n\(tested.stderr)")
        #expect(try Self.ruleExpressions().count == 8)
    }

    @Test func theDashboardsQueriesParse() async throws {
        let expressions = try Self.dashboardExpressions()
        #expect(expressions.count >= 12)
        // promtool parses PromQL only in rule files: each query as a recording rule.
        var file = "groups:\n  - name: dashboard\n    rules:\n"
        for (index, expression) in expressions.enumerated() {
            let quoted = expression.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            file += "      - record: dashboard:query_\(index)\n        expr: \"\(quoted)\"\n"
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("queries.yml")
        try Data(file.utf8).write(to: path)
        let checked = try await Self.promtool(["check", "rules", path.path])
        #expect(checked.status == 0, "\(checked.stdout)\n\(checked.stderr)")
    }

    @Test func everyMetricTheRulesAndTheDashboardReadIsExposed() async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port) = try await CrashRecoveryTests.serve(database)
        let (userId, device) = try await CrashRecoveryTests.enrollOne(port)
        #expect(try await BackupCommandTests.checkIn(port, userId: userId, device: device, session: "m-1") != nil)
        let metrics = try await CrashRecoveryTests.send(port, "GET", "/metrics")
        #expect(metrics.status == 200)
        let exposition = String(decoding: metrics.body, as: UTF8.self)
        #expect(exposition.contains("devices_in_use 1"))
        #expect(exposition.contains("devices_silent 0"))
        let backup = directory.appendingPathComponent("backup.sqlite").path
        let metricsFile = directory.appendingPathComponent("backup.prom").path
        let made = try await ChildProcess(
            try builtExecutable("attendance"),
            ["backup", "--database", database, "--to", backup, "--metrics-file", metricsFile]
        ).finish()
        #expect(made.status == 0, "\(made.stderr)")
        server.signal(SIGTERM)
        _ = await server.finish()
        let backupMetrics = try String(contentsOfFile: metricsFile, encoding: .utf8)

        for (name, text) in [("/metrics", exposition), ("the backup's metrics file", backupMetrics)] {
            let linted = try await Self.promtool(["check", "metrics"], input: text)
            #expect(linted.status == 0, "\(name): \(linted.stdout)\n\(linted.stderr)")
            #expect(linted.stdout.isEmpty && linted.stderr.isEmpty, "\(name): \(linted.stdout)\(linted.stderr)")
        }

        var exposed: Set<String> = ["up"]
        for line in (exposition + backupMetrics).split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            let name = String(parts[2])
            exposed.insert(name)
            if parts.count > 3, parts[3] == "histogram" {
                exposed.formUnion(["_bucket", "_sum", "_count"].map { name + $0 })
            }
        }
        let read = try (Self.ruleExpressions() + Self.dashboardExpressions()).reduce(into: Set<String>()) {
            $0.formUnion(Self.metricNames(in: $1))
        }
        #expect(read.contains("http_request_duration_seconds_bucket"))
        #expect(read.contains("attendance_backup_last_success_timestamp_seconds"))
        #expect(read.subtracting(exposed).isEmpty, "read but not exposed: \(read.subtracting(exposed).sorted())")
    }
}
