import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import Testing

/// `attendance timesheets` as a cron job runs it on a SQLite file: the same rows and columns as
/// the API's export, written whole or not at all, and refusals that name the flag.
@Suite struct TimesheetsCommandTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), ["timesheets"] + arguments).finish()
    }

    @Test func writesTheCSVAndTheXLSXOfARange() async throws {
        let (directory, path) = try ServeCommandTests.temporaryDatabase()
        let repository = try SQLiteRepository.open(path: path)
        try await repository.createSite(
            SiteRecord(id: "hq", name: "HQ", timeZone: "America/New_York", beacon: SiteBeacon(major: 1)))
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let start = try #require(ISO8601DateFormatter().date(from: "2026-11-01T04:00:00Z"))  // 00:00 EDT
        _ = try await repository.addSession(
            AddedSession(
                sessionKey: "night", userId: "alice", siteId: "hq", checkInAt: start,
                checkOutAt: start.addingTimeInterval(25 * 3_600), reason: "the 25-hour day"),
            actor: .adminToken, requestId: nil, now: Date())
        repository.shutdown()

        let csv = directory.appendingPathComponent("november.csv").path
        let written = try await Self.run(
            ["--database", path, "--from", "2026-11-01", "--to", "2026-11-01", "--out", csv])
        #expect(written.status == 0, "\(written.stderr)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).components(separatedBy: "\r\n")
        #expect(lines.first == TimesheetColumns.days.joined(separator: ","))
        #expect(lines[1].hasPrefix("alice,Alice,hq,2026-11-01,America/New_York,-04:00 -05:00,"))
        #expect(lines[1].contains(",1500,"), "the fall-back day has 25 hours")
        let xlsx = directory.appendingPathComponent("november.xlsx").path
        let book = try await Self.run(
            ["--database", path, "--from", "2026-11-01", "--to", "2026-11-01", "--format", "xlsx", "--out", xlsx])
        #expect(book.status == 0, "\(book.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: xlsx))
        #expect(bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]))
        let partial = directory.appendingPathComponent(".november.xlsx.partial").path
        #expect(!FileManager.default.fileExists(atPath: partial))

        let again = try await Self.run(
            ["--database", path, "--from", "2026-11-01", "--to", "2026-11-01", "--out", csv])
        #expect(again.status == 0, "an existing file is replaced: \(again.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains(",1500,"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".november.csv.partial").path))

        let backwards = try await Self.run(
            ["--database", path, "--from", "2026-11-02", "--to", "2026-11-01", "--out", csv])
        #expect(backwards.status != 0)
        #expect(backwards.stderr.contains("'--to'"), "\(backwards.stderr)")
        let badDate = try await Self.run(
            ["--database", path, "--from", "2026-13-01", "--to", "2026-11-01", "--out", csv])
        #expect(badDate.status != 0)
        #expect(badDate.stderr.contains("'--from' is '2026-13-01'"))
        let unknownSite = try await Self.run(
            ["--database", path, "--from", "2026-11-01", "--to", "2026-11-01", "--site", "nope", "--out", csv])
        #expect(unknownSite.status != 0)
        #expect(unknownSite.stderr.contains("nope"))
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains(",1500,"), "a refusal leaves the old file")
    }
}
