import AttendanceExports
import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Testing

/// Timesheets through the API, over a real socket, on both backends: settings with their refusals
/// and audit rows, the rows of a week by the site's clock, the employee's own view, and the CSV
/// and XLSX exports of the same query agreeing cell for cell (the XLSX opened with openpyxl).
@Suite struct TimesheetAPITests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func at(_ local: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = berlin
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return RFC3339Text.format(formatter.date(from: local)!)
    }

    /// Ada works 09:00-17:00 Monday to Friday at site 1 (Europe/Berlin) from 2026-06-01.
    static func officeWeek(_ live: LiveServer) async throws -> LiveServer.Enrolled {
        let ada = try await live.enrollEmployee(name: "Ada, \"the\" = Lovelace")
        let shifts = ["monday", "tuesday", "wednesday", "thursday", "friday"].map {
            ["weekday": $0, "start": "09:00", "end": "17:00", "expectedMinutes": 480] as [String: Any]
        }
        let schedule = try await live.send(
            "PUT", "/v1/admin/schedules/office", json: ["name": "Office", "shifts": shifts])
        #expect(schedule.status == 200, "\(schedule.text)")
        let assigned = try await live.send(
            "POST", "/v1/admin/schedule-assignments",
            json: ["userId": ada.userId, "siteId": ada.siteId, "scheduleId": "office", "from": "2026-06-01"])
        #expect(assigned.status == 201, "\(assigned.text)")
        let rules = try await live.send(
            "PUT", "/v1/admin/sites/\(ada.siteId)/timesheet-rules",
            json: [
                "dayBoundary": "calendar", "lateGraceMinutes": 5,
                "breakRules": [["workedOverMinutes": 360, "breakMinutes": 30]],
            ])
        #expect(rules.status == 200, "\(rules.text)")
        #expect(
            try await live.send(
                "PUT", "/v1/admin/sites/\(ada.siteId)/holidays/2026-06-04", json: ["name": "Corpus Christi"]
            ).status == 200)
        let sessions = [
            ("2026-06-01 09:00", "2026-06-01 12:30"), ("2026-06-01 13:15", "2026-06-01 17:45"),
            ("2026-06-02 09:20", "2026-06-02 17:00"), ("2026-06-03 08:55", "2026-06-03 17:00"),
        ]
        for (start, end) in sessions {
            let added = try await live.send(
                "POST", "/v1/admin/sessions",
                json: [
                    "userId": ada.userId, "siteId": ada.siteId, "checkInAt": at(start), "checkOutAt": at(end),
                    "reason": "entered from the paper register",
                ])
            #expect(added.status == 201, "\(added.text)")
        }
        return ada
    }

    @Test(arguments: Backend.allCases) func aWeekIsCountedByTheSitesClockWithItsScheduleAndHoliday(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await Self.officeWeek(live)
        let answer = try await live.send("GET", "/v1/admin/timesheets?from=2026-06-01&to=2026-06-07")
        #expect(answer.status == 200, "\(answer.text)")
        let days = try #require(answer.json["days"] as? [[String: Any]])
        let summary = days.map { day in
            [
                day["date"] as? String ?? "", day["status"] as? String ?? "", "\(day["workedMinutes"] ?? "")",
                "\(day["lateMinutes"] ?? "")", "\(day["overtimeMinutes"] ?? "-")",
            ].joined(separator: " ")
        }
        #expect(
            summary == [
                "2026-06-01 present 480 0 0", "2026-06-02 late 430 20 0", "2026-06-03 present 455 0 0",
                "2026-06-04 off 0 0 0", "2026-06-05 absent 0 0 0", "2026-06-06 off 0 0 0", "2026-06-07 off 0 0 0",
            ])
        let monday = try #require(days.first)
        #expect(monday["measuredBreakMinutes"] as? Int == 45)
        #expect(monday["deductedBreakMinutes"] as? Int == 0)
        #expect(monday["utcOffsets"] as? [String] == ["+02:00"])
        #expect(monday["flags"] as? [String] == ["corrected"], "added by an admin")
        #expect(days[3]["holiday"] as? String == "Corpus Christi")
        let weeks = try #require(answer.json["weeks"] as? [[String: Any]])
        #expect(weeks.first?["expectedMinutes"] as? Int == 1920, "four working days, the holiday expects nothing")
        #expect(weeks.first?["workedMinutes"] as? Int == 1365, "480 + (460 - 30 deducted) + (485 - 30 deducted)")

        // The employee sees the same rows with their device; the admin token can't ask for them.
        let mine = try await live.send("GET", "/v1/me/timesheet?from=2026-06-01&to=2026-06-07", token: ada.token)
        #expect(mine.status == 200)
        #expect((mine.json["days"] as? [[String: Any]])?.count == 7)
        #expect(try await live.send("GET", "/v1/me/timesheet?from=2026-06-01&to=2026-06-07").status == 403)
        #expect(
            try await live.send(
                "GET", "/v1/admin/timesheets?from=2026-06-01&to=2026-06-07", token: ada.token
            ).status == 403)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func theCSVAndTheXLSXOfOneQueryAgreeCellForCell(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        _ = try await Self.officeWeek(live)
        let query = "/v1/admin/timesheets?from=2026-06-01&to=2026-06-07"
        let csv = try await live.send("GET", query + "&format=csv")
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        let records = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(records.first == TimesheetColumns.days.joined(separator: ","))
        #expect(records.count == 8)
        #expect(csv.text.contains("\"Ada, \"\"the\"\" = Lovelace\""), "RFC 4180 quoting")
        #expect(csv.text.contains("2026-06-01T09:00:00+02:00,2026-06-01T07:00:00Z"), "local with offset, then UTC")

        let xlsx = try await live.send("GET", query + "&format=xlsx")
        #expect(xlsx.status == 200)
        #expect(xlsx.body.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a ZIP container")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xlsx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let book = directory.appendingPathComponent("timesheet.xlsx")
        let text = directory.appendingPathComponent("timesheet.csv")
        try xlsx.body.write(to: book)
        try csv.body.write(to: text)
        let compared = try await Self.python(
            """
            import csv, sys, openpyxl
            book = openpyxl.load_workbook(sys.argv[1], read_only=True)
            sheet = [["" if v is None else str(v) for v in row] for row in book["Days"].iter_rows(values_only=True)]
            with open(sys.argv[2], newline="", encoding="utf-8") as f:
                rows = list(csv.reader(f))
            width = len(rows[0])
            sheet = [row + [""] * (width - len(row)) for row in sheet]
            assert len(sheet) == len(rows), (len(sheet), len(rows))
            for r, (a, b) in enumerate(zip(sheet, rows)):
                assert a == b, (r, a, b)
            weeks = list(book["Weeks"].iter_rows(values_only=True))
            print(len(rows) * width, len(weeks))
            """, arguments: [book.path, text.path])
        #expect(compared == "200 2", "8 rows x 25 columns equal; a header and one week")

        // The sessions behind them, every one, as CSV (limit and cursor are for JSON pages).
        let sessions = try await live.send("GET", "/v1/admin/sessions?format=csv&limit=1")
        #expect(sessions.status == 200)
        let lines = sessions.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == SessionColumns.names.joined(separator: ","))
        #expect(lines.count == 5, "a header and the four sessions")
        #expect(lines.dropFirst().allSatisfy { $0.contains("Europe/Berlin") && $0.contains(",closed,manual,") })
        #expect(lines[1].contains(",2026-06-01T09:00:00+02:00,2026-06-01T07:00:00Z,2026-06-01T12:30:00+02:00,"))
        let refused = try await live.send("GET", "/v1/admin/sessions?format=csv&from=2026-13-01T00:00:00Z")
        #expect(refused.status == 400)
        #expect(refused.detail.contains("'from'"))
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func settingsAreValidatedAndAudited(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await Self.officeWeek(live)
        let badTime = try await live.send(
            "PUT", "/v1/admin/schedules/night",
            json: [
                "name": "Night",
                "shifts": [["weekday": "monday", "start": "22:00", "end": "24:00", "expectedMinutes": 60]],
            ])
        #expect(badTime.status == 400)
        #expect(badTime.detail.contains("end"), "\(badTime.detail)")
        let tooLong = try await live.send(
            "PUT", "/v1/admin/schedules/night",
            json: [
                "name": "Night",
                "shifts": [["weekday": "monday", "start": "22:00", "end": "02:00", "expectedMinutes": 300]],
            ])
        #expect(tooLong.status == 422)
        #expect(tooLong.detail.contains("shifts[monday].expectedMinutes"), "\(tooLong.detail)")
        let overlap = try await live.send(
            "POST", "/v1/admin/schedule-assignments",
            json: ["userId": ada.userId, "siteId": ada.siteId, "scheduleId": "office", "from": "2026-07-01"])
        #expect(overlap.status == 409)
        let unknown = try await live.send(
            "POST", "/v1/admin/schedule-assignments",
            json: ["userId": ada.userId, "siteId": ada.siteId, "scheduleId": "nope", "from": "2027-01-01"])
        #expect(unknown.status == 422)
        #expect(unknown.detail.contains("'scheduleId'"))
        let inUse = try await live.send("DELETE", "/v1/admin/schedules/office")
        #expect(inUse.status == 409)
        #expect(inUse.detail.contains("assignment"))

        // Leave takes the assigned site; the note is kept but never exported.
        let leave = try await live.send(
            "PUT", "/v1/admin/employees/\(ada.userId)/leave/2026-06-05", json: ["type": "sick", "note": "flu"])
        #expect(leave.status == 200, "\(leave.text)")
        #expect(leave.json["siteId"] as? String == ada.siteId)
        let sheet = try await live.send("GET", "/v1/admin/timesheets?from=2026-06-05&to=2026-06-05")
        #expect((sheet.json["days"] as? [[String: Any]])?.first?["status"] as? String == "leave")
        let bob = try await live.send("POST", "/v1/admin/employees", json: ["name": "Bob"]).json["userId"] as? String
        let noSite = try await live.send(
            "PUT", "/v1/admin/employees/\(bob ?? "")/leave/2026-06-05", json: ["type": "vacation"])
        #expect(noSite.status == 422)
        #expect(noSite.detail.contains("'siteId'"))

        let audit = try await live.send("GET", "/v1/admin/audit?limit=50").json["items"] as? [[String: Any]] ?? []
        let kinds = audit.compactMap { $0["kind"] as? String }
        #expect(kinds.filter { $0 == "timesheetSetting.saved" }.count >= 5)
        #expect(
            try await live.send("DELETE", "/v1/admin/sites/\(ada.siteId)/holidays/2026-06-04").status == 204)
        #expect(
            try await live.send("DELETE", "/v1/admin/sites/\(ada.siteId)/holidays/2026-06-04").status == 404)

        // Erasing a person erases their leave (its type and note can be health data).
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/deactivate").status == 200)
        #expect(try await live.send("POST", "/v1/admin/employees/\(ada.userId)/erase").status == 200)
        #expect(try await live.send("GET", "/v1/admin/leave?from=2026-06-01&to=2026-06-30").array.isEmpty)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aBadRangeIsRefusedNamingTheField(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let cases: [(String, Int, String)] = [
            ("from=2026-06-08&to=2026-06-01", 422, "'to'"), ("from=2026-01-01&to=2026-12-31", 422, "'to'"),
            ("from=2026-02-30&to=2026-03-01", 400, "'from'"),
            ("from=2026-06-01&to=2026-06-02&siteId=none", 404, "none"),
            ("from=2026-06-01&to=2026-06-02&format=csv&userId=nobody", 404, "nobody"),
        ]
        for (query, status, named) in cases {
            let answer = try await live.send("GET", "/v1/admin/timesheets?" + query)
            #expect(answer.status == status, "\(query): \(answer.text)")
            #expect(answer.detail.contains(named), "\(query): \(answer.detail)")
        }
        try await live.stop()
    }

    /// Runs a Python script (openpyxl comes from PyPI: `.ci/run` installs it) and returns its output.
    /// Off the cooperative pool: starting Python and openpyxl takes a while, and a blocked pool
    /// thread (there are as many as cores) stalls every other test meanwhile.
    static func python(_ script: String, arguments: [String]) async throws -> String {
        try await ThrowawayPostgres.offThePool { try pythonNow(script, arguments: arguments) }
    }

    private static func pythonNow(_ script: String, arguments: [String]) throws -> String {
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + arguments)
        guard run.status == 0 else {
            throw TimesheetTestFailure(description: "python3 failed (pip install openpyxl?): \(run.stderr)")
        }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct TimesheetTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// Pay periods through the API on both backends: a lock keeps June's rows, a late session and a
/// night shift across the month's end become exceptions, a cycle can't rewrite a locked month,
/// and reopening needs a reason.
/// A download says its file name, and a format the contract doesn't list is refused naming it.
@Suite struct TimesheetDownloadTests {
    @Test func downloadsAreNamedAndAnUnknownFormatIsNamed() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        for format in ["csv", "xlsx"] {
            let answer = try await live.send(
                "GET", "/v1/admin/timesheets?from=2026-11-01&to=2026-11-07&format=\(format)")
            #expect(answer.status == 200)
            let disposition = answer.headers.first { $0.key.lowercased() == "content-disposition" }?.value
            #expect(disposition == "attachment; filename=\"timesheet-2026-11-01-2026-11-07.\(format)\"")
        }
        let pdf = try await live.send("GET", "/v1/admin/timesheets?from=2026-11-01&to=2026-11-07&format=pdf")
        #expect(pdf.status == 400)
        #expect(pdf.detail.hasPrefix("'format' is 'pdf'"), "\(pdf.detail)")
        try await live.stop()
    }
}

@Suite struct PayPeriodAPITests {
    @Test(arguments: Backend.allCases) func aLockedMonthKeepsItsRowsAndListsWhatCameLater(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await TimesheetAPITests.officeWeek(live)
        #expect(try await live.send("PUT", "/v1/admin/pay-cycles/2026-05-01", json: ["cycle": "monthly"]).status == 200)
        let periods = try await live.send("GET", "/v1/admin/pay-periods?from=2026-06-01&to=2026-07-31")
        #expect(
            periods.array.map { "\($0["start"] ?? "")..\($0["end"] ?? "") \($0["state"] ?? "")" } == [
                "2026-06-01..2026-06-30 open", "2026-07-01..2026-07-31 open",
            ])
        let early = try await live.send("POST", "/v1/admin/pay-periods/2026-06-01", json: ["action": "lock"])
        #expect(early.status == 409)
        #expect(early.detail.contains("approve it before locking"))
        let approved = try await live.send("POST", "/v1/admin/pay-periods/2026-06-01", json: ["action": "approve"])
        #expect(approved.status == 200)
        let locked = try await live.send("POST", "/v1/admin/pay-periods/2026-06-01", json: ["action": "lock"])
        #expect(locked.json["state"] as? String == "locked", "\(locked.text)")

        // A session HR adds later, and a night shift across the month's end, change no locked row.
        for (start, end) in [("2026-06-05 09:00", "2026-06-05 17:00"), ("2026-06-30 22:00", "2026-07-01 06:00")] {
            let added = try await live.send(
                "POST", "/v1/admin/sessions",
                json: [
                    "userId": ada.userId, "siteId": ada.siteId, "checkInAt": TimesheetAPITests.at(start),
                    "checkOutAt": TimesheetAPITests.at(end), "reason": "found in the gate log",
                ])
            #expect(added.status == 201)
        }
        let june = try await live.send("GET", "/v1/admin/timesheets?from=2026-06-05&to=2026-06-05")
        let friday = try #require((june.json["days"] as? [[String: Any]])?.first)
        #expect(friday["status"] as? String == "absent", "as locked")
        #expect((friday["flags"] as? [String])?.contains("locked") == true)
        let july = try await live.send("GET", "/v1/admin/timesheets?from=2026-07-01&to=2026-07-01")
        #expect((july.json["days"] as? [[String: Any]])?.first?["workedMinutes"] as? Int == 360, "July is live")
        let exceptions = try await live.send("GET", "/v1/admin/pay-periods/2026-06-01/exceptions").array
        #expect(exceptions.map { $0["date"] as? String ?? "" } == ["2026-06-05", "2026-06-30"])
        #expect((exceptions.first?["changed"] as? [String])?.contains("workedMinutes") == true)

        let rewrite = try await live.send("PUT", "/v1/admin/pay-cycles/2026-06-15", json: ["cycle": "weekly"])
        #expect(rewrite.status == 409)
        #expect(rewrite.detail.contains("2026-07-01"))
        let noReason = try await live.send("POST", "/v1/admin/pay-periods/2026-06-01", json: ["action": "reopen"])
        #expect(noReason.status == 422)
        #expect(noReason.detail.contains("'reason'"))
        let reopened = try await live.send(
            "POST", "/v1/admin/pay-periods/2026-06-01",
            json: ["action": "reopen", "reason": "the gate log was found late"])
        #expect(reopened.json["state"] as? String == "open")
        let now = try await live.send("GET", "/v1/admin/timesheets?from=2026-06-05&to=2026-06-05")
        #expect((now.json["days"] as? [[String: Any]])?.first?["workedMinutes"] as? Int == 450, "live again")
        let audit = try await live.send("GET", "/v1/admin/audit?limit=20").json["items"] as? [[String: Any]] ?? []
        let kinds = Set(audit.compactMap { $0["kind"] as? String })
        #expect(kinds.isSuperset(of: ["payPeriod.approved", "payPeriod.locked", "payPeriod.reopened"]))
        try await live.stop()
    }
}
