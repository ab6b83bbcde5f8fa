import AttendanceTestSupport
import Foundation
import Testing

/// `attendance radio-check`: the default radio against the real iPhones' figures, and the same
/// statistics of a recording of one's own.
@Suite struct RadioCheckCommandTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), ["radio-check"] + arguments).finish()
    }

    static func recording(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString).csv")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theDefaultRadioPassesEveryBand() async throws {
        let run = try await Self.run([])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("| SD of RSSI around a 60 s rolling median (dB) | 4.6 (3.8–5.7) |"))
        #expect(!run.stdout.contains("FAIL"))
        #expect(run.stdout.split(separator: "\n").filter { $0.hasSuffix("| pass |") }.count == 7)
    }

    @Test func aRecordingOfOnesOwnIsMeasuredTheSameWay() async throws {
        let path = try Self.recording("seconds,rssi\n0,-70\n3,-72\n6,\n9,0\n12,-71\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Self.run(["--recording", path])
        #expect(run.status == 0, "\(run.stderr)")
        let statistics = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Double])
        #expect(statistics["missingFraction"] == 0.4)
        #expect(statistics["longestGapSeconds"] == 9)
    }

    @Test func aBadRecordingIsNamed() async throws {
        let path = try Self.recording("seconds,rssi\n0,-70\nsoon,-72\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Self.run(["--recording", path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("line 3: seconds is 'soon'; expected a number"), "\(run.stderr)")
        let backwards = try Self.recording("0,-70\n5,-72\n4,-71\n")
        defer { try? FileManager.default.removeItem(atPath: backwards) }
        let again = try await Self.run(["--recording", backwards])
        #expect(again.stderr.contains("line 3: seconds is 4.0; expected ≥ 5.0 (time order)"), "\(again.stderr)")
    }
}
