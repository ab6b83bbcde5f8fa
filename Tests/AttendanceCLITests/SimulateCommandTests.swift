import AttendanceTestSupport
import Foundation
import Testing

/// `attendance simulate` as a user runs it: the real server in the process, the report on
/// standard output, errors that name the option.
@Suite struct SimulateCommandTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), ["simulate"] + arguments).finish()
    }

    @Test func theJSONReportHasTheFixedSchemaForEveryPolicy() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try await Self.run(
            ["--employees", "2", "--days", "1", "--seed", "5", "--policy", "all", "--json", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in ["seed", "employees", "days", "employeeDays", "wallSeconds", "employeeDaysPerSecond", "transport", "policies"] {
            #expect(report[key] != nil, "\(key)")
        }
        #expect(report["employeeDays"] as? Int == 2 && report["seed"] as? Int == 5)
        let policies = try #require(report["policies"] as? [String: [String: Any]])
        #expect(Set(policies.keys) == ["default", "naive", "altbeacon", "hindsight"])
        for (name, policy) in policies {
            // The offline bound runs on no phone and decides after the run: no such figures.
            let offline = name == "hindsight"
            let checkIn = policy["checkIn"] as? [String: Any]
            #expect((checkIn?["timestampErrorSeconds"] as? [String: Any]).map { Set($0.keys) } == ["p50", "p95", "p99", "max"], "\(name)")
            #expect((checkIn?["decisionLatencySeconds"] as? [String: Any] == nil) == offline, "\(name)")
            #expect(checkIn?["missedPresences"] is Int, "\(name)")
            #expect(((policy["checkOut"] as? [String: Any])?["timestampErrorSeconds"] as? [String: Any]) != nil, "\(name)")
            #expect(policy["falseCheckOutsPer1000EmployeeDays"] is Double && policy["falseCheckInsPer1000EmployeeDays"] is Double, "\(name)")
            #expect((policy["workedMinutesError"] as? [String: Any]).map { Set($0.keys) } == ["p50", "p95"], "\(name)")
            #expect((policy["delivery"] as? [String: Any]).map { Set($0.keys) } == ["recorded", "delivered", "lost", "duplicates", "maxDelaySeconds"], "\(name)")
            #expect((checkIn?["missedByCause"] as? [String: Int]).map { Set($0.keys) } == ["manual", "forceQuit", "wrongSite", "other"], "\(name)")
            if offline {
                #expect(policy["device"] == nil && policy["energy"] == nil && policy["cutBySuspension"] == nil)
                continue
            }
            #expect((policy["device"] as? [String: Any]).map { Set($0.keys) }
                == ["rangingSecondsPerDay", "wakeupsPerDay", "bytesPerDay", "awakeSecondsPerDay", "backgroundLocationSecondsPerDay"], "\(name)")
            #expect((policy["energy"] as? [String: Any])?["batteryPercentPerDay"] != nil && policy["cutBySuspension"] is Int, "\(name)")
        }
        // --out holds the same report.
        #expect(try String(contentsOfFile: out, encoding: .utf8) + "\n" == run.stdout)
    }

    @Test func theTableShowsThePoliciesSideBySide() async throws {
        let run = try await Self.run(["--employees", "1", "--days", "1", "--policy", "all"])
        #expect(run.status == 0, "\(run.stderr)")
        let header = try #require(run.stdout.split(separator: "\n").first { $0.contains("default") })
        #expect(header.contains("naive") && header.contains("altbeacon") && header.contains("hindsight"))
        #expect(run.stdout.contains("missed presences") && run.stdout.contains("bytes/day p50/p95"))
    }

    @Test(arguments: [
        (["--policy", "bogus"], "'--policy' is 'bogus'; expected default, naive, altbeacon, hindsight or all"),
        (["--crash-rate", "1.5"], "'--crash-rate' is 1.5; expected a probability from 0 to 1"),
        (["--days", "2", "--offline-hours", "100"], "'--offline-hours' is 100.0; expected 0 to 48 (the simulated days)"),
        (["--server", "ftp://x"], "'--server' is 'ftp://x'; expected an http:// or https:// URL"),
        (["--phone-log", "emp-0001"], "'--phone-log' is 'emp-0001'; expected EMPLOYEE=FILE"),
        (["--transport", "pigeon"], "'--transport' is 'pigeon'; expected http or inprocess"),
        (["--engine-config", "/nonexistent/engine.json"], "can't read '--engine-config' /nonexistent/engine.json"),
        (["--employees", "3", "--phone-log", "emp-0007=/tmp/x.log"], "'--phone-log' names 'emp-0007'; expected an employee from emp-0000 to emp-0002"),
        (["--policy", "naive", "--phone-log", "emp-0000=/tmp/x.log"], "'--phone-log' logs our policy's phone; expected '--policy' default or all"),
    ])
    func badOptionsAreNamed(arguments: [String], message: String) async throws {
        let run = try await Self.run(arguments)
        #expect(run.status == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// One employee's phone log: the engine's audit records (the arrival's window, its
    /// decision) and the ranging trace, which `attendance replay` reads back.
    @Test func aPhoneLogHoldsTheAuditRecordsAndAReplayableTrace() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("phone-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("emp-0001.log").path
        let run = try await Self.run(
            ["--employees", "2", "--days", "1", "--seed", "3", "--json", "--phone-log", "emp-0001=\(log)"])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("# emp-0001") == true)
        #expect(lines.contains { $0.contains(" windowOpened ") })
        let traceStart = try #require(lines.firstIndex(of: "# ranging trace (replay format)"))
        let trace = directory.appendingPathComponent("trace.csv").path
        try (lines[(traceStart + 1)...].joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(lines.count > traceStart + 1)
        let replay = try await ChildProcess(try builtExecutable("attendance"), ["replay", trace]).finish()
        #expect(replay.status == 0, "\(replay.stderr)")
    }

    @Test func anUnknownWorldFieldIsNamed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(UUID().uuidString).json").path
        try #"{"people": {"arrivalMeanHr": 9}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Self.run(["--world", path, "--employees", "1", "--days", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("'people.arrivalMeanHr' is not a known field"), "\(run.stderr)")
    }

    /// Ctrl-C and `kill` end a run that has its server in the process (the server's service group
    /// takes both signals for its own shutdown; before, the phones ran on), with the shell's status
    /// for the signal, a line saying so, and no half-written report.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalEndsTheRun(signal: Int32, name: String) async throws {
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("simulate-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let child = try ChildProcess(
            try builtExecutable("attendance"),
            ["simulate", "--employees", "40", "--days", "5", "--transport", "inprocess", "--json", "--out", out])
        // Sent once the process catches the signal (its handler is installed before the run starts).
        var caught = false
        for _ in 0..<1_200 where child.isRunning {
            caught = try Self.catches(signal, pid: child.processIdentifier)
            if caught { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(caught, "the child never installed a handler for \(name)")
        try await Task.sleep(for: .seconds(2))   // into the run: the server and the phones are going
        #expect(child.isRunning, "the run ended before the signal: \(child.standardErrorSoFar)")
        child.signal(signal)
        for _ in 0..<600 where child.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        let stillRunning = child.isRunning
        if stillRunning { child.killNow() }
        #expect(!stillRunning, "\(name) did not end the run within 30 s")
        let run = await child.finish()
        #expect(run.reason == .exit && run.status == 128 + signal, "\(run.reason) \(run.status)")
        #expect(run.stderr.contains("attendance simulate: stopped by \(name); no report was written"), "\(run.stderr)")
        #expect(run.stdout.isEmpty && !FileManager.default.fileExists(atPath: out))
    }

    /// Whether `pid` catches `signal`: its bit in the SigCgt mask of /proc/PID/status.
    static func catches(_ signal: Int32, pid: pid_t) throws -> Bool {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }
}
