import ArgumentParser
import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation

/// `attendance timesheets`: the timesheet export for cron jobs and payroll hand-offs, the same
/// rows and columns as `GET /v1/admin/timesheets?format=csv|xlsx` (docs/TIMESHEETS.md).
struct Timesheets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the timesheet rows of a date range as CSV or XLSX.",
        discussion: """
            Dates are local dates of each site's time zone, --from through --to, both included (at most \
            \(TimesheetConfiguration.maximumDays) days). The file is written beside --out and renamed into \
            place when complete, so a reader never sees half a file.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, xlsx }

    @OptionGroup var options: DatabaseOptions
    @Option(help: "The first local date, YYYY-MM-DD.") var from: String
    @Option(help: "The last local date, YYYY-MM-DD (included).") var to: String
    @Option(help: "Only this site's rows.") var site: String?
    @Option(help: "Only this employee's rows.") var user: String?
    @Option(help: "csv or xlsx.") var format: Format = .csv
    @Option(help: "The file to write.") var out: String

    func run() async throws {
        guard let first = LocalDate(from) else {
            throw CommandFailure("'--from' is '\(from)'; expected a date YYYY-MM-DD")
        }
        guard let last = LocalDate(to) else { throw CommandFailure("'--to' is '\(to)'; expected a date YYYY-MM-DD") }
        let repository = try await options.open()
        defer { repository.shutdown() }
        let service = TimesheetService(repository: repository, environment: .live)
        let query = TimesheetQuery(
            from: first, through: last, siteId: site.map { SiteID($0) }, userId: user.map { UserID($0) })
        let destination = URL(fileURLWithPath: out)
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).partial")
        do {
            try await service.validate(query)
            switch format {
            case .csv:
                guard FileManager.default.createFile(atPath: partial.path, contents: nil),
                    let handle = FileHandle(forWritingAtPath: partial.path)
                else { throw CommandFailure("'--out' is '\(out)'; expected a path this user can write") }
                for try await chunk in TimesheetCSV(service: service, query: query) {
                    try handle.write(contentsOf: Data(chunk))
                }
                try handle.synchronize()
                try handle.close()
            case .xlsx:
                let file = try await TimesheetWorkbook.write(service: service, query: query)
                try? FileManager.default.removeItem(at: partial)
                try FileManager.default.moveItem(at: file, to: partial)
            }
            // rename(2) replaces an existing file in one step (FileManager.replaceItemAt fails on Linux
            // when the file exists, and would leave neither file).
            guard rename(partial.path, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CommandFailure("'--out' is '\(out)'; could not move the finished file into place: \(reason)")
            }
        } catch let problem as DomainError {
            try? FileManager.default.removeItem(at: partial)
            var detail = problem.detail
            for (field, flag) in [
                ("'to'", "'--to'"), ("'from'", "'--from'"), ("'siteId'", "'--site'"), ("'userId'", "'--user'"),
            ] {
                detail = detail.replacingOccurrences(of: field, with: flag)
            }
            throw CommandFailure(detail)
        } catch {
            // Nothing half-written is left beside --out, whatever went wrong.
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        print("wrote \(destination.path)")
    }
}
