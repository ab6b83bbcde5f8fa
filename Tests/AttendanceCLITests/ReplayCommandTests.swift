import AttendanceTestSupport
import Foundation
import Testing

/// Runs the built `attendance` executable as a user would, and reads what it prints.
@Suite struct ReplayCommandTests {
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), arguments, standardInput: stdin).finish()
    }

    static let uuid = "FDA50693-0000-0000-0000-290995101092"

    static func writeTemporary(_ text: String, suffix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)\(suffix)")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func jsonLinesForTheDropoutTrace() async throws {
        var rows = ["t,uuid,major,minor,rssi"]
        for second in 0..<128 { rows.append("\(second),\(Self.uuid),1,100,\((60..<68).contains(second) ? 0 : -60)") }
        let path = try Self.writeTemporary(rows.joined(separator: "\n"), suffix: ".csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Self.run(["replay", path, "--json"])
        #expect(run.status == 0)
        let objects = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        #expect(objects.map { $0["type"] as? String } == ["checkIn", "checkOut"])
        #expect(objects[1]["ts"] as? String == "1970-01-01T00:02:07Z")
        #expect(objects[1]["reason"] as? String == "regionExit")
        #expect(objects[0]["major"] as? Int == 1)
        #expect(objects[0]["uuid"] as? String == Self.uuid)
        #expect(
            objects.allSatisfy { $0["decidedAt"] is String && ($0["sessionKey"] as? String)?.hasPrefix("s-") == true })
    }

    @Test func aFieldTestExportRunsWithTheConfigurationItRecorded() async throws {
        // The phone's thresholds were stricter than the defaults: -60 dBm never confirms there.
        let strict =
            #"{"earlyConfirmMinMedianDBm":-50,"windowEndConfirmMinMedianDBm":-50,"#
            + #""walkingConfirmMinMedianDBm":-50,"dwellMinMedianDBm":-50}"#
        var rows = [
            "# Beacon Attendance field test: device phone-1", "# config: \(strict)", "# log: {\"type\":\"outbox\"}",
            "t,uuid,major,minor,rssi",
        ]
        for second in 0..<128 { rows.append("\(second),\(Self.uuid),1,100,\((60..<68).contains(second) ? 0 : -60)") }
        let path = try Self.writeTemporary(rows.joined(separator: "\n"), suffix: ".csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorded = try await Self.run(["replay", path, "--json"])
        #expect(recorded.status == 0)
        #expect(recorded.stdout.isEmpty)
        #expect(recorded.stderr.contains("using the configuration recorded in the file"))
        // --config wins over the recorded one.
        let config = try Self.writeTemporary("{}", suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let defaults = try await Self.run(["replay", path, "--json", "--config", config])
        #expect(defaults.stdout.contains("checkIn"))
        // A recorded configuration that does not decode is named, and nothing is replayed.
        let broken = try Self.writeTemporary(
            rows.joined(separator: "\n").replacingOccurrences(of: strict, with: #"{"dwellMinMedianDBm":"loud"}"#),
            suffix: ".csv")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let refused = try await Self.run(["replay", broken])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("'# config:'") && refused.stdout.isEmpty)
    }

    @Test func aMalformedRowFailsBeforeAnyDecisionIsPrinted() async throws {
        // Valid rows that would check in come first; the error on line 7 must stop everything.
        var rows = ["t,uuid,major,minor,rssi"]
        for second in 0..<5 { rows.append("\(second),\(Self.uuid),1,100,-60") }
        rows.append("5,\(Self.uuid),1,100,loud")
        let run = try await Self.run(["replay", "-", "--json"], stdin: rows.joined(separator: "\n"))
        #expect(run.status != 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("line 7, column 'rssi': 'loud' is not valid; expected an integer dBm"))
    }

    @Test func aConfigurationFileIsValidatedAndApplied() async throws {
        let bad = try Self.writeTemporary(#"{"softExitGraceSeconds": 3}"#, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let refused = try await Self.run(["replay", "-", "--config", bad], stdin: "t,uuid,major,minor,rssi\n")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("'softExitGraceSeconds' is 3.0; expected seconds ≥ 10"))

        // A 100 s merge window settles the check-out within a 200 s settle period.
        let good = try Self.writeTemporary(#"{"mergeWindowSeconds": 100}"#, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: good) }
        let trace = (["t,uuid,major,minor,rssi"] + (0..<20).map { "\($0),\(Self.uuid),2,1,-58" }).joined(
            separator: "\n")
        let run = try await Self.run(["replay", "-", "--config", good, "--settle", "200"], stdin: trace)
        #expect(run.status == 0)
        let decisions: [String] = run.stdout.split(separator: "\n").compactMap { (line: Substring) -> String? in
            line.split(separator: " ").first.map { String($0) }
        }
        #expect(decisions == ["checkIn", "checkOut"])
    }

    @Test func aMissingFileIsNamed() async throws {
        let run = try await Self.run(["replay", "/nonexistent/trace.csv"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("cannot read the trace file '/nonexistent/trace.csv'"))
    }
}
