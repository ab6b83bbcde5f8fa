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
                let done = form["done"].flatMap { Self.settingNotice($0, viewer) }
                return page(
                    "settings", title: viewer.t("Settings"), viewer: viewer, try await settingsData(form, viewer),
                    notice: done)
            })
        console.post(
            "settings/pay-cycle",
            use: signedIn("savePayCycle", needs: .managePayPeriods) { _, _, viewer, form in
                try await settingsForm("save-cycle", viewer: viewer, sent: form) {
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
                }
            })
        console.post(
            "settings/schedules",
            use: signedIn("saveSchedule", needs: .manageTimesheetSettings) { _, _, viewer, form in
                try await settingsForm("save-schedule", viewer: viewer, sent: form) {
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
                        shifts[day] = ScheduledShift(
                            startMinute: from, endMinute: to, expectedMinutes: expected ?? length)
                    }
                    _ = try await services.timesheetSettings.saveSchedule(
                        WorkSchedule(
                            id: ScheduleID(try form.required("id", label: "schedule id")),
                            name: try form.required("name", label: "name"), shifts: shifts),
                        actor: viewer.actor)
                    return Self.redirect("/console/settings?done=schedule")
                }
            })
        console.post(
            "settings/schedules/:id/delete",
            use: signedIn("deleteSchedule", needs: .manageTimesheetSettings) { request, context, viewer, form in
                let schedule = try await services.timesheetSettings.schedule(
                    id: ScheduleID(try context.parameters.require("id")))
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Delete the schedule %@?", Bidi.isolated(schedule.name)),
                        consequence: viewer.t("Refused while an assignment or a site's rules use it."),
                        button: viewer.t("Delete %@", Bidi.isolated(schedule.name)), back: "/console/settings"),
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
                return try await settingsForm("save-rules", viewer: viewer, sent: form, row: site.rawValue) {
                    try await services.timesheetSettings.saveRules(
                        siteId: site, policy: try policy(form),
                        defaultScheduleId: form["defaultScheduleId"].map { ScheduleID($0) },
                        actor: viewer.actor)
                    return Self.redirect("/console/settings?done=rules")
                }
            })
        console.post(
            "settings/holidays",
            use: signedIn("saveHoliday", needs: .manageTimesheetSettings) { _, _, viewer, form in
                try await settingsForm("add-holiday", viewer: viewer, sent: form, row: form["siteId"]) {
                    try await services.timesheetSettings.saveHoliday(
                        siteId: SiteID(try form.required("siteId", label: "site")),
                        date: try LocalTime.day("date", try form.required("date", label: "date")),
                        name: form["name"] ?? "", actor: viewer.actor)
                    return Self.redirect("/console/settings?done=holiday")
                }
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
                try await settingsForm("assign", viewer: viewer, sent: form, user: form["userId"]) {
                    let user = UserID(try form.required("userId", label: "employee"))
                    _ = try await services.timesheetSettings.assign(
                        userId: user, siteId: SiteID(try form.required("siteId", label: "site")),
                        scheduleId: ScheduleID(try form.required("scheduleId", label: "schedule")),
                        from: try LocalTime.day("from", try form.required("from", label: "from")),
                        through: try form["through"].map { try LocalTime.day("through", $0) }, actor: viewer.actor)
                    return Self.redirect("/console/settings?user=\(Pager.encoded(user.rawValue))&done=assigned")
                }
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
                try await settingsForm("add-leave", viewer: viewer, sent: form, user: form["userId"]) {
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
                }
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

    /// The notice after a saved change (`?done=…`), in the viewer's language.
    static func settingNotice(_ done: String, _ viewer: Viewer) -> String? {
        switch done {
        case "cycle": viewer.t("Pay cycle saved.")
        case "schedule": viewer.t("Schedule saved.")
        case "scheduleDeleted": viewer.t("Schedule deleted.")
        case "rules": viewer.t("Site rules saved.")
        case "holiday": viewer.t("Holiday saved.")
        case "holidayDeleted": viewer.t("Holiday removed.")
        case "assigned": viewer.t("Schedule assigned.")
        case "assignmentEnded": viewer.t("Assignment removed.")
        case "leave": viewer.t("Leave saved.")
        case "leaveDeleted": viewer.t("Leave removed.")
        default: nil
        }
    }

    /// A weekday's name as a label; `short`: its abbreviation in a schedule's shifts.
    static func weekdayLabel(_ day: Weekday, short: Bool = false, _ viewer: Viewer) -> String {
        switch day {
        case .monday: short ? viewer.t("Mon") : viewer.t("Monday")
        case .tuesday: short ? viewer.t("Tue") : viewer.t("Tuesday")
        case .wednesday: short ? viewer.t("Wed") : viewer.t("Wednesday")
        case .thursday: short ? viewer.t("Thu") : viewer.t("Thursday")
        case .friday: short ? viewer.t("Fri") : viewer.t("Friday")
        case .saturday: short ? viewer.t("Sat") : viewer.t("Saturday")
        case .sunday: short ? viewer.t("Sun") : viewer.t("Sunday")
        }
    }

    /// A pay cycle's label in a menu and the list (the option's value stays the raw value).
    static func payCycleLabel(_ cycle: PayCycle, _ viewer: Viewer) -> String {
        switch cycle {
        case .weekly: viewer.t("weekly")
        case .biweekly: viewer.t("biweekly")
        case .semimonthly: viewer.t("semimonthly")
        case .monthly: viewer.t("monthly")
        }
    }

    /// A day boundary's label, after "A session counts on".
    static func dayBoundaryLabel(_ boundary: DayBoundary, _ viewer: Viewer) -> String {
        switch boundary {
        case .calendar: viewer.t("the calendar day (split at midnight)")
        case .shiftStart: viewer.t("the day the shift starts")
        }
    }

    /// A leave type's label: the four the form offers translated, any other as it was typed.
    static func leaveTypeLabel(_ type: String, _ viewer: Viewer) -> String {
        switch type {
        case "vacation": viewer.t("vacation")
        case "sick": viewer.t("sick")
        case "unpaid": viewer.t("unpaid")
        case "other": viewer.t("other")
        default: type
        }
    }

    /// A Settings form's action: a refusal shows the page again with it (`FormFailure`), with the
    /// person whose schedule or leave it was about when it names one, in the site's part of the
    /// page when it is a site's form (`row`).
    private func settingsForm(
        _ form: String, viewer: Viewer, sent: FormData, user: String? = nil, row: String? = nil,
        _ action: () async throws -> Response
    ) async throws -> Response {
        try await formAction(
            form, row: row, template: "settings", title: viewer.t("Settings"), viewer: viewer, sent: sent,
            data: { try await settingsData(FormData(user.map { "user=" + Pager.encoded($0) } ?? ""), viewer) },
            action)
    }

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
                    [
                        "value": $0.rawValue, "label": Self.dayBoundaryLabel($0, viewer),
                        "selected": $0 == policy.dayBoundary,
                    ]
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
                    [
                        "date": $0.date.description, "day": viewer.language.date($0.date), "name": $0.name,
                        "siteId": site.id.rawValue,
                    ]
                },
            ])
        }
        let scheduleRows: [[String: Any]] = schedules.map { schedule in
            [
                "id": schedule.id.rawValue, "name": schedule.name,
                "shifts": Weekday.allCases.compactMap { day in
                    schedule.shifts[day].map {
                        "\(Self.weekdayLabel(day, short: true, viewer)) "
                            + "\(TimesheetSettingCodec.clockText($0.startMinute))–"
                            + "\(TimesheetSettingCodec.clockText($0.endMinute)) "
                            + "(\(LocalTime.duration(minutes: $0.expectedMinutes)))"
                    }
                }.joined(separator: ", "),
            ]
        }
        var data: [String: Any] = [
            "sites": siteRows, "schedules": scheduleRows, "noSchedules": scheduleRows.isEmpty,
            "weekdays": Weekday.allCases.map { ["name": $0.name, "label": Self.weekdayLabel($0, viewer)] },
            "cycles": try await services.payPeriods.cycles().map {
                [
                    "cycle": Self.payCycleLabel($0.cycle, viewer), "from": viewer.language.date($0.effectiveFrom),
                    "anchor": viewer.language.date($0.anchor),
                ]
            },
            "cycleKinds": PayCycle.allCases.map { ["value": $0.rawValue, "label": Self.payCycleLabel($0, viewer)] },
            "mayPayCycle": viewer.may(.managePayPeriods),
            "siteChoices": sites.map { ["id": $0.id.rawValue, "name": $0.name] },
            "q": form["q"] ?? "", "today": today.description,
        ]
        // One employee's assignments and leave, found by search.
        let employees = try await services.repository.employees()
        let pick = try await personPick(form, viewer, employees: employees)
        let person = pick.selected
        if pick.searching {
            data["matches"] = pick.matches.prefix(PersonPick.shownMatches).map {
                ["name": $0.name, "href": "/console/settings?user=\(Pager.encoded($0.id.rawValue))"] as [String: Any]
            }
            data["noMatch"] = pick.matches.isEmpty
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
                            "from": viewer.language.date($0.from),
                            "through": $0.through.map { viewer.language.date($0) } ?? viewer.t("open-ended"),
                        ]
                    },
                    "leave": try await services.timesheetSettings.leave(
                        userId: person.id, dates: today.adding(days: -366)...today.adding(days: 366)
                    ).map {
                        [
                            "date": $0.date.description, "day": viewer.language.date($0.date),
                            "type": Self.leaveTypeLabel($0.type, viewer), "note": $0.note ?? "",
                            "site": siteNames[$0.siteId] ?? $0.siteId.rawValue,
                        ]
                    },
                ] as [String: Any]
        }
        return data
    }
}
