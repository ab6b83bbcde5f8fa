import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// Timesheets and their exports, and the employee's own timesheet (docs/TIMESHEETS.md).
extension AttendanceAPI {
    func listTimesheets(_ input: Operations.ListTimesheets.Input) async throws -> Operations.ListTimesheets.Output {
        let query = input.query
        let sheet = TimesheetQuery(
            from: try Self.localDate("from", query.from), through: try Self.localDate("to", query.to),
            siteId: try query.siteId.map { try Self.id("siteId", $0) },
            userId: try query.userId.map { try Self.id("userId", $0) })
        switch query.format ?? .json {
        case .csv:
            // Every refusal before the first byte: a streamed answer can't turn into a 4xx later.
            // (JSON and XLSX are refused by `open`, before their answer starts.)
            try await timesheets.validate(sheet)
            return .ok(
                .init(
                    headers: .init(contentDisposition: Self.attachment(sheet, "csv")),
                    body: .csv(
                        HTTPBody(
                            TimesheetCSV(service: timesheets, query: sheet), length: .unknown,
                            iterationBehavior: .single))))
        case .xlsx:
            let file = try await TimesheetWorkbook.write(service: timesheets, query: sheet)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            return .ok(
                .init(
                    headers: .init(contentDisposition: Self.attachment(sheet, "xlsx")),
                    body: .applicationVnd_openxmlformatsOfficedocument_spreadsheetml_sheet(
                        HTTPBody(
                            FileChunks(url: file), length: size.map { .known(Int64($0)) } ?? .unknown,
                            iterationBehavior: .single))))
        case .json:
            let limit = query.limit ?? 100
            guard (1...1000).contains(limit) else {
                throw DomainError.field("limit", String(limit), expected: "1 to 1000")
            }
            let cursor = try query.cursor.map { UserID(try Self.id("cursor", $0)) }
            return .ok(.init(body: .json(try await page(sheet, after: cursor, limit: limit))))
        }
    }

    /// A download's name, as the console's: `timesheet-2026-11-01-2026-11-30.csv`.
    static func attachment(_ sheet: TimesheetQuery, _ ext: String) -> String {
        "attachment; filename=\"timesheet-\(sheet.from)-\(sheet.through).\(ext)\""
    }

    func getMyTimesheet(_ input: Operations.GetMyTimesheet.Input) async throws -> Operations.GetMyTimesheet.Output {
        let (_, user) = try Caller.device()
        let sheet = TimesheetQuery(
            from: try Self.localDate("from", input.query.from), through: try Self.localDate("to", input.query.to),
            userId: user)
        return .ok(.init(body: .json(try await page(sheet, after: nil, limit: 1))))
    }

    private func page(
        _ sheet: TimesheetQuery, after cursor: UserID?, limit: Int
    ) async throws -> Components.Schemas.TimesheetPage {
        var days: [Components.Schemas.TimesheetDay] = []
        var weeks: [Components.Schemas.TimesheetWeek] = []
        let next = try await timesheets.forEachEmployee(sheet, after: cursor, limit: limit) { employee in
            days += employee.days.map { Self.day($0, name: employee.employee.name) }
            weeks += employee.weeks.map(Self.week)
        }
        return .init(
            from: sheet.from.description, to: sheet.through.description, days: days, weeks: weeks,
            nextCursor: next?.rawValue)
    }

    static func localDate(_ field: String, _ text: String) throws -> LocalDate {
        guard let date = LocalDate(text) else {
            throw DomainError.field(
                field, InputRules.shown(text), expected: "a date YYYY-MM-DD (a real date, years 0001 to 9999)")
        }
        return date
    }

    static func day(_ day: TimesheetDay, name: String) -> Components.Schemas.TimesheetDay {
        .init(
            userId: day.userId.rawValue, employeeName: name, siteId: day.siteId.rawValue, date: day.date.description,
            timeZone: day.timeZone, utcOffsets: day.utcOffsetSeconds.map(utcOffsetText), firstIn: day.firstIn,
            lastOut: day.lastOut, proposedEnd: day.proposedEnd, scheduledStart: day.scheduledStart,
            scheduledEnd: day.scheduledEnd, workedMinutes: day.workedMinutes,
            measuredBreakMinutes: day.measuredBreakMinutes, deductedBreakMinutes: day.deductedBreakMinutes,
            expectedMinutes: day.expectedMinutes, lateMinutes: day.lateMinutes, earlyMinutes: day.earlyMinutes,
            overtimeMinutes: day.overtimeMinutes, sessionCount: day.sessionCount,
            status: .init(rawValue: day.status.rawValue) ?? .present,
            flags: day.sortedFlags.compactMap { .init(rawValue: $0.rawValue) }, holiday: day.holiday,
            leaveType: day.leaveType, leaveNote: day.leaveNote)
    }

    static func week(_ week: TimesheetWeek) -> Components.Schemas.TimesheetWeek {
        .init(
            userId: week.userId.rawValue, weekStart: week.weekStart.description, workedMinutes: week.workedMinutes,
            expectedMinutes: week.expectedMinutes, overtimeMinutes: week.overtimeMinutes)
    }
}
