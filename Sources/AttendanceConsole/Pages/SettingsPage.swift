import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// The timesheet settings the API has, in the console: the pay cycle, work schedules, each site's
/// rules and holidays, and each employee's schedule assignments and leave. The same services as the
/// API (`TimesheetSettingsService`, `PayPeriodService`): the same checks and audit rows.
extension Console {
    func registerSettings(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "settings",
            use: signedIn("settings", needs: .manageTimesheetSettings) { _, _, viewer, form in
                let done = form["done"].flatMap { Self.settingNotices[$0] }
                return page(
                    "settings", title: "Settings", viewer: viewer, try await settingsData(form, viewer), notice: done)
            })
        console.post(
            "settings/pay-cycle",
            use: signedIn("savePayCycle", needs: .managePayPeriods) { _, _, viewer, form in
                let cycle = try form.required("cycle", label: "cycle")
                guard let kind = PayCycle(rawValue: cycle) else {
                    throw DomainError.field(
                        "cycle", cycle, expected: PayCycle.allCases.map(\.rawValue).joined(separator: ", "))
                }
                _ = try await services.payPeriods.saveCycle(
                    kind,
                    effectiveFrom: try LocalTime.day(
                        "effectiveFrom", try form.required("effectiveFrom", label: "effective from")),
                    anchor: try form["anchor"].map { try LocalTime.day("anchor", $0) }, actor: viewer.actor)
                return Self.redirect("/console/settings?done=cycle")
            })
        console.post(
            "settings/schedules",
            use: signedIn("saveSchedule", needs: .manageTimesheetSettings) { _, _, viewer, form in
                var shifts: [Weekday: ScheduledShift] = [:]
                for day in Weekday.allCases {
                    guard let start = form["\(day.name)-start"] else { continue }
                    let end = try form.required("\(day.name)-end", label: "\(day.name)'s end")
                    guard let from = TimesheetSettingCodec.clockMinute(start),
                        let to = TimesheetSettingCodec.clockMinute(end)
                    else {
                        throw DomainError.field("\(day.name)", "\(start)–\(end)", expected: "times HH:MM")
                    }
                    let expected = try form["\(day.name)-minutes"].map { text -> Int in
                        guard let minutes = Int(text) else {
                            throw DomainError.field("\(day.name)-minutes", text, expected: "whole minutes")
                        }
                        return minutes
                    }
                    let length = (to > from ? to : to + 1_440) - from
                    shifts[day] = ScheduledShift(startMinute: from, endMinute: to, expectedMinutes: expected ?? length)
                }
                _ = try await services.timesheetSettings.saveSchedule(
                    WorkSchedule(
                        id: ScheduleID(try form.required("id", label: "schedule id")),
                        name: try form.required("name", label: "name"), shifts: shifts),
                    actor: viewer.actor)
                return Self.redirect("/console/settings?done=schedule")
            })
        console.post(
            "settings/schedules/:id/delete",
            use: signedIn("deleteSchedule", needs: .manageTimesheetSettings) { request, context, viewer, form in
                let schedule = try await services.timesheetSettings.schedule(
                    id: ScheduleID(try context.parameters.require("id")))
                if let ask = unconfirmed(
                    Confirmation(
                        question: "Delete the schedule \(Bidi.isolated(schedule.name))?",
                        consequence: "Refused while an assignment or a site's rules use it.",
                        button: "Delete \(Bidi.isolated(schedule.name))", back: "/console/settings"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                try await services.timesheetSettings.deleteSchedule(id: schedule.id, actor: viewer.actor)
                return Self.redirect("/console/settings?done=scheduleDeleted")
            })
        console.post(
            "settings/sites/:id/rules",
            use: signedIn("saveTimesheetRules", needs: .manageTimesheetSettings) { _, context, viewer, form in
                let site = SiteID(try context.parameters.require("id"))
                try await services.timesheetSettings.saveRules(
                    siteId: site, policy: try policy(form),
                    defaultScheduleId: form["defaultScheduleId"].map { ScheduleID($0) },
                    actor: viewer.actor)
                return Self.redirect("/console/settings?done=rules")
            })
        console.post(
            "settings/holidays",
            use: signedIn("saveHoliday", needs: .manageTimesheetSettings) { _, _, viewer, form in
                try await services.timesheetSettings.saveHoliday(
                    siteId: SiteID(try form.required("siteId", label: "site")),
                    date: try LocalTime.day("date", try form.required("date", label: "date")),
                    name: form["name"] ?? "", actor: viewer.actor)
                return Self.redirect("/console/settings?done=holiday")
            })
        console.post(
            "settings/holidays/delete",
            use: signedIn("deleteHoliday", needs: .manageTimesheetSettings) { _, _, viewer, form in
                try await services.timesheetSettings.deleteHoliday(
                    siteId: SiteID(try form.required("siteId", label: "site")),
                    date: try LocalTime.day("date", try form.required("date", label: "date")), actor: viewer.actor)
                return Self.redirect("/console/settings?done=holidayDeleted")
            })
        console.post(
            "settings/assignments",
            use: signedIn("createScheduleAssignment", needs: .manageTimesheetSettings) { _, _, viewer, form in
                let user = UserID(try form.required("userId", label: "employee"))
                _ = try await services.timesheetSettings.assign(
                    userId: user, siteId: SiteID(try form.required("siteId", label: "site")),
                    scheduleId: ScheduleID(try form.required("scheduleId", label: "schedule")),
                    from: try LocalTime.day("from", try form.required("from", label: "from")),
                    through: try form["through"].map { try LocalTime.day("through", $0) }, actor: viewer.actor)
                return Self.redirect("/console/settings?user=\(Pager.encoded(user.rawValue))&done=assigned")
            })
        console.post(
            "settings/assignments/:id/end",
            use: signedIn("deleteScheduleAssignment", needs: .manageTimesheetSettings) { _, context, viewer, form in
                try await services.timesheetSettings.endAssignment(
                    id: AssignmentID(try context.parameters.require("id")), actor: viewer.actor)
                return Self.redirect(
                    "/console/settings?user=\(Pager.encoded(form["userId"] ?? ""))&done=assignmentEnded")
            })
        console.post(
            "settings/leave",
            use: signedIn("saveLeave", needs: .manageTimesheetSettings) { _, _, viewer, form in
                let user = UserID(try form.required("userId", label: "employee"))
                let first = try LocalTime.day("from", try form.required("from", label: "from"))
                let last = try form["through"].map { try LocalTime.day("through", $0) } ?? first
                let days = try DateRange.checked(
                    from: first, to: last, maximumDays: 62, limit: "at most 62 days at once")
                var day = days.lowerBound
                while day <= days.upperBound {
                    _ = try await services.timesheetSettings.saveLeave(
                        userId: user, date: day, siteId: form["siteId"].map { SiteID($0) },
                        type: form["type"] ?? "", note: form["note"], actor: viewer.actor)
                    day = day.adding(days: 1)
                }
                return Self.redirect("/console/settings?user=\(Pager.encoded(user.rawValue))&done=leave")
            })
        console.post(
            "settings/leave/delete",
            use: signedIn("deleteLeave", needs: .manageTimesheetSettings) { _, _, viewer, form in
                let user = UserID(try form.required("userId", label: "employee"))
                try await services.timesheetSettings.deleteLeave(
                    userId: user, date: try LocalTime.day("date", try form.required("date", label: "date")),
                    actor: viewer.actor)
                return Self.redirect("/console/settings?user=\(Pager.encoded(user.rawValue))&done=leaveDeleted")
            })
    }

    static let settingNotices = [
        "cycle": "Pay cycle saved.", "schedule": "Schedule saved.", "scheduleDeleted": "Schedule deleted.",
        "rules": "Site rules saved.", "holiday": "Holiday saved.", "holidayDeleted": "Holiday removed.",
        "assigned": "Schedule assigned.", "assignmentEnded": "Assignment removed.", "leave": "Leave saved.",
        "leaveDeleted": "Leave removed.",
    ]

    /// A site's rules form as a policy; each number named when it is not one.
    private func policy(_ form: FormData) throws -> TimesheetPolicy {
        func minutes(_ name: String) throws -> Int? {
            try form[name].map { text in
                guard let value = Int(text) else { throw DomainError.field(name, text, expected: "whole minutes") }
                return value
            }
        }
        var policy = TimesheetPolicy()
        let boundary = form["dayBoundary"] ?? policy.dayBoundary.rawValue
        guard let dayBoundary = DayBoundary(rawValue: boundary) else {
            throw DomainError.field(
                "dayBoundary", boundary, expected: DayBoundary.allCases.map(\.rawValue).joined(separator: " or "))
        }
        policy.dayBoundary = dayBoundary
        policy.lateGraceMinutes = try minutes("lateGraceMinutes") ?? 0
        policy.earlyGraceMinutes = try minutes("earlyGraceMinutes") ?? 0
        policy.halfDayBelowMinutes = try minutes("halfDayBelowMinutes")
        policy.absentBelowMinutes = try minutes("absentBelowMinutes")
        policy.breakMinimumMinutes = try minutes("breakMinimumMinutes") ?? policy.breakMinimumMinutes
        policy.overtimeCountsEarlyArrival = form["overtimeCountsEarlyArrival"] == "yes"
        policy.breakRules = try (0..<3).compactMap { index in
            guard let over = try minutes("break\(index)-over") else { return nil }
            let length = try minutes("break\(index)-minutes") ?? 0
            return BreakRule(workedOverMinutes: over, breakMinutes: length)
        }
        return policy
    }

    private func settingsData(_ form: FormData, _ viewer: Viewer) async throws -> [String: Any] {
        let sites = try await services.repository.sites().filter(\.isActive)
        let schedules = try await services.timesheetSettings.schedules()
        let today = LocalDate(dayNumber: Int((environment.now().timeIntervalSince1970 / 86_400).rounded(.down)))
        var siteRows: [[String: Any]] = []
        // Every site's rules and holidays (a year back, ten ahead) in two reads, not two per site.
        let allRules = try await services.repository.siteRules()
        let holidays = Dictionary(
            grouping: try await services.repository.holidays(
                siteId: nil, dates: today.adding(days: -366)...today.adding(days: 3_660)),
            by: \.siteId)
        for site in sites {
            let rules = allRules[site.id] ?? SiteRules()
            let policy = rules.policy
            var breaks: [[String: Any]] = policy.breakRules.enumerated().map { index, rule in
                ["index": index, "over": rule.workedOverMinutes, "minutes": rule.breakMinutes]
            }
            while breaks.count < 3 { breaks.append(["index": breaks.count, "over": "", "minutes": ""]) }
            siteRows.append([
                "id": site.id.rawValue, "name": site.name, "zone": site.timeZone,
                "boundaries": DayBoundary.allCases.map {
                    ["value": $0.rawValue, "selected": $0 == policy.dayBoundary]
                },
                "late": policy.lateGraceMinutes, "early": policy.earlyGraceMinutes,
                "halfDay": policy.halfDayBelowMinutes.map(String.init) ?? "",
                "absent": policy.absentBelowMinutes.map(String.init) ?? "",
                "breakMinimum": policy.breakMinimumMinutes, "overtimeEarly": policy.overtimeCountsEarlyArrival,
                "breaks": breaks,
                "schedules": schedules.map {
                    ["id": $0.id.rawValue, "name": $0.name, "selected": $0.id == rules.defaultScheduleId]
                },
                "holidays": (holidays[site.id] ?? []).map {
                    ["date": $0.date.description, "name": $0.name, "siteId": site.id.rawValue]
                },
            ])
        }
        let scheduleRows: [[String: Any]] = schedules.map { schedule in
            [
                "id": schedule.id.rawValue, "name": schedule.name,
                "shifts": Weekday.allCases.compactMap { day in
                    schedule.shifts[day].map {
                        "\(day.name.prefix(3).capitalized) \(TimesheetSettingCodec.clockText($0.startMinute))–"
                            + "\(TimesheetSettingCodec.clockText($0.endMinute)) "
                            + "(\(LocalTime.duration(minutes: $0.expectedMinutes)))"
                    }
                }.joined(separator: ", "),
            ]
        }
        var data: [String: Any] = [
            "sites": siteRows, "schedules": scheduleRows, "noSchedules": scheduleRows.isEmpty,
            "weekdays": Weekday.allCases.map { ["name": $0.name, "label": $0.name.capitalized] },
            "cycles": try await services.payPeriods.cycles().map {
                [
                    "cycle": $0.cycle.rawValue, "from": $0.effectiveFrom.description,
                    "anchor": $0.anchor.description,
                ]
            },
            "cycleKinds": PayCycle.allCases.map(\.rawValue), "mayPayCycle": viewer.may(.managePayPeriods),
            "siteChoices": sites.map { ["id": $0.id.rawValue, "name": $0.name] },
            "q": form["q"] ?? "", "today": today.description,
        ]
        // One employee's assignments and leave, found by search.
        let employees = try await services.repository.employees()
        var person = form["user"].flatMap { id in employees.first { $0.id.rawValue == id } }
        if person == nil, let query = form["q"] {
            let matches = employees.filter { EmployeeSearch.matches(query, $0) }
                .sorted { ($0.name, $0.id.rawValue) < ($1.name, $1.id.rawValue) }
            if matches.count == 1 { person = matches[0] }
            data["matches"] = matches.prefix(30).map {
                ["name": $0.name, "href": "/console/settings?user=\(Pager.encoded($0.id.rawValue))"] as [String: Any]
            }
            data["noMatch"] = matches.isEmpty
        }
        if let person {
            let siteNames = Dictionary(sites.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            let scheduleNames = Dictionary(schedules.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            data["person"] =
                [
                    "id": person.id.rawValue, "name": person.name,
                    "assignments": try await services.timesheetSettings.assignments(userId: person.id).map {
                        [
                            "id": $0.id.rawValue, "site": siteNames[$0.siteId] ?? $0.siteId.rawValue,
                            "schedule": scheduleNames[$0.scheduleId] ?? $0.scheduleId.rawValue,
                            "from": $0.from.description, "through": $0.through?.description ?? "open-ended",
                        ]
                    },
                    "leave": try await services.timesheetSettings.leave(
                        userId: person.id, dates: today.adding(days: -366)...today.adding(days: 366)
                    ).map {
                        [
                            "date": $0.date.description, "type": $0.type, "note": $0.note ?? "",
                            "site": siteNames[$0.siteId] ?? $0.siteId.rawValue,
                        ]
                    },
                ] as [String: Any]
        }
        return data
    }
}
