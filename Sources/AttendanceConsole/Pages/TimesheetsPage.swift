import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// Timesheets by pay period: the periods with approve, lock and reopen, the period's days, and
/// the CSV and XLSX downloads (the same bytes as the API's exports).
extension Console {
    func registerTimesheets(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "timesheets",
            use: signedIn("timesheets", needs: .readTimesheets) { request, _, viewer, form in
                let done = form["done"].flatMap {
                    [
                        "approve": viewer.t("Period approved."), "lock": viewer.t("Period locked."),
                        "reopen": viewer.t("Period reopened."), "unapprove": viewer.t("Approval withdrawn."),
                    ][$0]
                }
                // The rows are read where the timesheet service reads: the standby while it keeps up.
                let asOf = services.reads.reading().asOf
                return page(
                    "timesheets", title: viewer.t("Timesheets"), viewer: viewer, try await timesheetData(form, viewer),
                    notice: done, readAsOf: asOf)
            })
        console.get(
            "timesheets.csv",
            use: signedIn("timesheetCSV", needs: .readTimesheets) { request, _, viewer, form in
                let sheet = try range(form)
                try await services.timesheets.validate(sheet)
                return download(
                    TimesheetCSV(service: services.timesheets, query: sheet), type: "text/csv; charset=utf-8",
                    name: "timesheet-\(sheet.from)-\(sheet.through).csv")
            })
        console.get(
            "timesheets.xlsx",
            use: signedIn("timesheetXLSX", needs: .readTimesheets) { request, _, viewer, form in
                let sheet = try range(form)
                let file = try await TimesheetWorkbook.write(service: services.timesheets, query: sheet)
                return download(
                    FileChunks(url: file), type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                    name: "timesheet-\(sheet.from)-\(sheet.through).xlsx")
            })
        console.post(
            "pay-periods/:start/:action",
            use: signedIn("changePayPeriod", needs: .managePayPeriods) { request, context, viewer, form in
                let start = try date("start", try context.parameters.require("start"))
                let action = try context.parameters.require("action")
                let event: PayPeriodMachine.Event
                switch action {
                case "approve": event = .approve
                case "unapprove": event = .unapprove
                case "lock": event = .lock
                case "reopen": event = .reopen(reason: form["reason"] ?? "")
                default:
                    throw Problem(
                        404, "No such action",
                        viewer.t("'%@' is not approve, unapprove, lock or reopen", action))
                }
                // Refused: the timesheets again with the reason beside the period's buttons.
                return try await formAction(
                    action + "-period", row: start.description, template: "timesheets",
                    title: viewer.t("Timesheets"), viewer: viewer, sent: form,
                    data: { try await timesheetData(FormData(""), viewer) }
                ) {
                    let changed = try await services.payPeriods.change(start: start, event, actor: viewer.actor)
                    return Self.redirect(
                        "/console/timesheets?from=\(changed.dates.start)&to=\(changed.dates.end)&done=\(action)")
                }
            })
    }

    private func timesheetData(_ query: FormData, _ viewer: Viewer) async throws -> [String: Any] {
        let today = LocalDate(dayNumber: Int((environment.now().timeIntervalSince1970 / 86_400).rounded(.down)))
        let periods = try await services.payPeriods.periods(from: today.adding(days: -120), through: today)
        let chosen =
            query["from"] != nil
            ? try range(query)
            : periods.last.map {
                TimesheetQuery(from: $0.dates.start, through: $0.dates.end)
            } ?? TimesheetQuery(from: today.adding(days: -6), through: today)
        let siteNames = Dictionary(
            try await services.repository.sites().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let employees = try await services.repository.employees()
        let person = try await personPick(query, viewer, employees: employees)
        var sheet = chosen
        sheet.userId = person.selected?.id
        let searching = person.searching
        var rows: [[String: Any]] = []
        var next: UserID?
        if !searching {
            next = try await services.timesheets.forEachEmployee(
                sheet, after: query["after"].map { UserID($0) }, limit: Self.timesheetPageSize
            ) { employee in
                for day in employee.days where viewer.scope.permits(day.siteId) {
                    rows.append([
                        "user": day.userId.rawValue, "name": employee.employee.name, "date": day.date.description,
                        "dateText": viewer.language.date(day.date),
                        "site": siteNames[day.siteId] ?? day.siteId.rawValue,
                        "firstIn": LocalTime.text(day.firstIn, zone: day.timeZone, in: viewer.language),
                        "lastOut": LocalTime.text(day.lastOut, zone: day.timeZone, in: viewer.language),
                        "worked": LocalTime.duration(minutes: day.workedMinutes),
                        "status": Self.statusText(day.status, viewer),
                        "flags": day.sortedFlags.map { Self.flagText($0, viewer) }.joined(separator: ", "),
                    ])
                }
            }
        }
        let range: [(String, String?)] = [("from", chosen.from.description), ("to", chosen.through.description)]
        let pager = Pager(path: "/console/timesheets", filters: range + person.filters, form: query)
        let mayManage = viewer.may(.managePayPeriods)
        let periodRows: [[String: Any]] = periods.reversed().map { period in
            [
                "id": period.dates.start.description, "start": period.dates.start.description,
                "end": period.dates.end.description,
                "startText": viewer.language.date(period.dates.start),
                "endText": viewer.language.date(period.dates.end), "state": Self.periodStateText(period.state, viewer),
                "chosen": period.dates.start == chosen.from,
                "mayApprove": mayManage && period.state == .open,
                "mayUnapprove": mayManage && period.state == .approved,
                "mayLock": mayManage && period.state == .approved, "mayReopen": mayManage && period.state == .locked,
            ]
        }
        return person.data(pager, viewer).merging([
            "periods": periodRows, "noPeriods": periodRows.isEmpty, "rows": rows,
            "empty": rows.isEmpty && !searching, "hasRows": !rows.isEmpty, "pager": pager.data(next: next?.rawValue),
            "from": chosen.from.description, "to": chosen.through.description,
            "fromText": viewer.language.date(chosen.from), "toText": viewer.language.date(chosen.through),
            "csv": "/console/timesheets.csv?from=\(chosen.from)&to=\(chosen.through)",
            "xlsx": "/console/timesheets.xlsx?from=\(chosen.from)&to=\(chosen.through)",
        ]) { _, page in page }
    }

    static let timesheetPageSize = 50

    /// A day's status as the viewer reads it (English: the status's own word).
    static func statusText(_ status: DayStatus, _ viewer: Viewer) -> String {
        switch status {
        case .present: viewer.t("present")
        case .late: viewer.t("late")
        case .halfDay: viewer.t("halfDay")
        case .absent: viewer.t("absent")
        case .off: viewer.t("day off")
        case .leave: viewer.t("leave")
        }
    }

    /// A day's flag as the viewer reads it (English: the flag's own word).
    static func flagText(_ flag: DayFlag, _ viewer: Viewer) -> String {
        switch flag {
        case .open: viewer.t("open")
        case .endUnconfirmed: viewer.t("endUnconfirmed")
        case .manual: viewer.t("manual")
        case .corrected: viewer.t("corrected")
        case .pendingRequest: viewer.t("pendingRequest")
        case .provisional: viewer.t("provisional")
        case .locked: viewer.t("locked")
        }
    }

    /// A pay period's state as the viewer reads it.
    static func periodStateText(_ state: PayPeriodMachine.State, _ viewer: Viewer) -> String {
        switch state {
        case .open: viewer.t("open")
        case .approved: viewer.t("approved")
        case .locked: viewer.t("locked")
        }
    }

    private func range(_ query: FormData) throws -> TimesheetQuery {
        TimesheetQuery(
            from: try date("from", try query.required("from", label: "from")),
            through: try date("to", try query.required("to", label: "to")))
    }

    private func date(_ field: String, _ text: String) throws -> LocalDate {
        guard let date = LocalDate(text) else { throw DomainError.field(field, text, expected: "a date YYYY-MM-DD") }
        return date
    }

    private func download<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, type: String, name: String) -> Response
    where Bytes.Element == ArraySlice<UInt8> {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        ConsoleSecurity.secure(&headers)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for try await chunk in bytes { try await writer.write(ByteBuffer(bytes: chunk)) }
                try await writer.finish(nil)
            })
    }
}
