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
                        "approve": "Period approved.", "lock": "Period locked.",
                        "reopen": "Period reopened.", "unapprove": "Approval withdrawn.",
                    ][$0]
                }
                return page(
                    "timesheets", title: "Timesheets", viewer: viewer, try await timesheetData(form, viewer),
                    notice: done)
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
                    throw Problem(404, "No such action", "'\(action)' is not approve, unapprove, lock or reopen")
                }
                let changed = try await services.payPeriods.change(start: start, event, actor: viewer.actor)
                return Self.redirect(
                    "/console/timesheets?from=\(changed.dates.start)&to=\(changed.dates.end)&done=\(action)")
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
        var matches: [EmployeeRecord] = []
        var sheet = chosen
        sheet.userId = query["user"].map { UserID($0) }
        if sheet.userId == nil, let text = query["q"] {
            matches = employees.filter { EmployeeSearch.matches(text, $0) }
                .sorted { ($0.name, $0.id.rawValue) < ($1.name, $1.id.rawValue) }
            if matches.count == 1 { sheet.userId = matches[0].id }
        }
        let searching = query["q"] != nil && sheet.userId == nil
        var rows: [[String: Any]] = []
        var next: UserID?
        if !searching {
            next = try await services.timesheets.forEachEmployee(
                sheet, after: query["after"].map { UserID($0) }, limit: Self.timesheetPageSize
            ) { employee in
                for day in employee.days where viewer.scope.permits(day.siteId) {
                    rows.append([
                        "user": day.userId.rawValue, "name": employee.employee.name, "date": day.date.description,
                        "site": siteNames[day.siteId] ?? day.siteId.rawValue,
                        "firstIn": LocalTime.text(day.firstIn, zone: day.timeZone),
                        "lastOut": LocalTime.text(day.lastOut, zone: day.timeZone),
                        "worked": LocalTime.duration(minutes: day.workedMinutes), "status": day.status.rawValue,
                        "flags": day.sortedFlags.map(\.rawValue).joined(separator: ", "),
                    ])
                }
            }
        }
        let range: [(String, String?)] = [("from", chosen.from.description), ("to", chosen.through.description)]
        let pager = Pager(
            path: "/console/timesheets",
            filters: range + [("user", sheet.userId?.rawValue), ("q", sheet.userId == nil ? query["q"] : nil)],
            form: query)
        let person = sheet.userId.flatMap { id in employees.first { $0.id == id } }
        let mayManage = viewer.may(.managePayPeriods)
        let periodRows: [[String: Any]] = periods.reversed().map { period in
            [
                "start": period.dates.start.description, "end": period.dates.end.description,
                "state": period.state.rawValue,
                "chosen": period.dates.start == chosen.from,
                "mayApprove": mayManage && period.state == .open,
                "mayUnapprove": mayManage && period.state == .approved,
                "mayLock": mayManage && period.state == .approved, "mayReopen": mayManage && period.state == .locked,
            ]
        }
        return [
            "periods": periodRows, "noPeriods": periodRows.isEmpty, "rows": rows,
            "empty": rows.isEmpty && !searching, "hasRows": !rows.isEmpty, "pager": pager.data(next: next?.rawValue),
            "searching": searching, "q": query["q"] ?? "",
            "matches": matches.prefix(50).map { employee in
                [
                    "name": employee.name, "externalId": employee.externalId ?? "",
                    "href": pager.with(("user", employee.id.rawValue), without: "q"),
                ] as [String: Any]
            },
            "selected": person.map { ["name": $0.name, "clear": pager.with(("user", nil), without: "q")] } as Any,
            "from": chosen.from.description, "to": chosen.through.description,
            "csv": "/console/timesheets.csv?from=\(chosen.from)&to=\(chosen.through)",
            "xlsx": "/console/timesheets.xlsx?from=\(chosen.from)&to=\(chosen.through)",
        ]
    }

    static let timesheetPageSize = 50

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
