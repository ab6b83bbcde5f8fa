import AttendanceTestSupport
import Foundation
import Testing

/// `attendance survey-world`: the rounds of a survey as a table, the surveyed world as a file the
/// simulator reads, and options out of range named.
@Suite struct SurveyWorldCommandTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), ["survey-world"] + arguments).finish()
    }

    @Test func theSurveyedWorldIsWrittenWithItsAddedBeacons() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("surveyed-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try await Self.run(["--seed", "1", "--spots", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "| round | site | spots | flagged | beacons added (x, y m from the site's origin) "
                    + "| added beacons lowered |"))
        #expect(run.stdout.contains("| 1 | hq | 146 | "))
        // Seed 1: the second survey blames the annex's added beacon by the wall.
        #expect(run.stdout.contains("| 2 | annex | 45 | ") && run.stdout.contains("minor 4 by "), "\(run.stdout)")
        #expect(run.stdout.contains("round 1 hq x "), "every flagged spot is printed with --spots")
        let world = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out)))
                as? [String: Any])
        let sites = try #require(world["sites"] as? [[String: Any]])
        let hq = try #require(sites.first { $0["id"] as? String == "hq" })
        #expect((hq["beacons"] as? [Any])?.count == 3)
        #expect(((hq["addedBeacons"] as? [Any])?.count ?? 0) > 0)
        // The file is a world the simulator takes.
        let simulate = try await ChildProcess(
            try builtExecutable("attendance"),
            ["simulate", "--world", out, "--employees", "2", "--days", "1", "--transport", "inprocess", "--json"]
        ).finish()
        #expect(simulate.status == 0, "\(simulate.stderr)")
    }

    @Test func anOptionOutOfRangeIsNamed() async throws {
        let run = try await Self.run(["--seconds-per-spot", "5"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("'--seconds-per-spot' is 5; expected 10 to 600"), "\(run.stderr)")
        let lowering = try await Self.run(["--maximum-lowering-db=-3"])
        #expect(lowering.status != 0)
        #expect(lowering.stderr.contains("'--maximum-lowering-db' is -3.0; expected 0 to 40"), "\(lowering.stderr)")
        let walls = try await Self.run(["--wall-meters", "12"])
        #expect(walls.status != 0)
        #expect(walls.stderr.contains("'--wall-meters' is 12.0; expected 0 to 10"), "\(walls.stderr)")
    }
}
