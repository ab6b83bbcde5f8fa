import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `TimesheetSettingsService` reads and writes: the repository protocols it needs, no more.
public typealias TimesheetSettingsServiceStorage = AttendanceRepository & TimesheetRepository

/// Schedules, assignments, a site's rules, holidays and leave: validated (every refusal a
/// `Problem` naming the field, the value and what was expected), stored, and audited in the
/// ledger in the same transaction (`timesheetSetting.saved` / `.removed`, before and after).
public struct TimesheetSettingsService: Sendable {
    public let repository: any TimesheetSettingsServiceStorage
    private let environment: ServerEnvironment

    public init(repository: any TimesheetSettingsServiceStorage, environment: ServerEnvironment) {
        self.repository = repository
        self.environment = environment
    }

    // MARK: - Schedules

    public func schedules() async throws -> [WorkSchedule] {
        try await repository.schedules()
    }

    public func schedule(id: ScheduleID) async throws -> WorkSchedule {
        try InputRules.identifier("scheduleId", id.rawValue)
        guard case .schedule(let schedule)? = try await repository.timesheetSetting(.schedule(id)) else {
            throw DomainError(.notFound, "Not found", "no schedule has the id '\(id)'")
        }
        return schedule
    }

    /// Creates or replaces the schedule `schedule.id`.
    public func saveSchedule(_ schedule: WorkSchedule, actor: LedgerActor) async throws -> WorkSchedule {
        try InputRules.identifier("scheduleId", schedule.id.rawValue)
        try InputRules.text("name", schedule.name, maxLength: 200, allowEmpty: false)
        for (day, shift) in schedule.shifts {
            guard (0...1440).contains(shift.expectedMinutes) else {
                throw DomainError.field(
                    "shifts[\(day.name)].expectedMinutes", String(shift.expectedMinutes), expected: "0 to 1440",
                    kind: .unprocessable)
            }
            guard shift.expectedMinutes * 60 <= (shift.endMinuteFromStartDay - shift.startMinute) * 60 else {
                throw DomainError.field(
                    "shifts[\(day.name)].expectedMinutes", String(shift.expectedMinutes),
                    expected: "no more than the shift's length from start to end", kind: .unprocessable)
            }
        }
        try await save(.schedule(schedule), actor: actor)
        return schedule
    }

    /// Refused (409) while an assignment or a site's rules use it: past timesheets need it.
    public func deleteSchedule(id: ScheduleID, actor: LedgerActor) async throws {
        _ = try await schedule(id: id)
        let users = try await assignments(userId: nil).filter { $0.scheduleId == id }
        let sites = try await repository.siteRules().filter { $0.value.defaultScheduleId == id }.keys
            .sorted { $0.rawValue < $1.rawValue }
        guard users.isEmpty, sites.isEmpty else {
            let uses = users.map { "assignment \($0.id)" } + sites.map { "the rules of site \($0)" }
            throw DomainError(
                .conflict, "Schedule in use", "schedule '\(id)' is used by \(uses.joined(separator: ", "))")
        }
        try await remove(.schedule(id), actor: actor)
    }

    // MARK: - Assignments

    public func assignments(userId: UserID?) async throws -> [ScheduleAssignment] {
        try await repository.assignments(userId: userId)
    }

    public func assign(
        userId: UserID, siteId: SiteID, scheduleId: ScheduleID, from: LocalDate, through: LocalDate?,
        actor: LedgerActor
    ) async throws -> ScheduleAssignment {
        guard try await repository.employee(id: userId) != nil else {
            throw DomainError.field("userId", userId.rawValue, expected: "the id of an employee", kind: .unprocessable)
        }
        try await siteInBody(siteId)
        guard try await repository.timesheetSetting(.schedule(scheduleId)) != nil else {
            throw DomainError.field(
                "scheduleId", InputRules.shown(scheduleId.rawValue), expected: "the id of a schedule",
                kind: .unprocessable)
        }
        if let through, through < from {
            throw DomainError.field(
                "through", through.description, expected: "a date on or after 'from'", kind: .unprocessable)
        }
        let candidate = ScheduleAssignment(
            id: environment.newId("asg-", length: 16), userId: userId, siteId: siteId,
            scheduleId: scheduleId, from: from, through: through)
        if let clash = try await assignments(userId: userId).first(where: { overlaps($0, candidate) }) {
            throw DomainError(
                .conflict, "Overlapping assignment",
                "employee '\(userId)' already works '\(clash.scheduleId)' at site '\(clash.siteId)' from \(clash.from)"
                    + (clash.through.map { " through \($0)" } ?? "") + " (assignment \(clash.id))")
        }
        try await save(.assignment(candidate), actor: actor)
        return candidate
    }

    public func endAssignment(id: AssignmentID, actor: LedgerActor) async throws {
        try InputRules.identifier("assignmentId", id.rawValue)
        guard try await repository.timesheetSetting(.assignment(id)) != nil else {
            throw DomainError(.notFound, "Not found", "no schedule assignment has the id '\(id)'")
        }
        try await remove(.assignment(id), actor: actor)
    }

    /// Two assignments of one employee at one site may not cover the same day.
    private func overlaps(_ a: ScheduleAssignment, _ b: ScheduleAssignment) -> Bool {
        guard a.siteId == b.siteId else { return false }
        let aEnd = a.through ?? LocalDate(dayNumber: Int.max / 2)
        let bEnd = b.through ?? LocalDate(dayNumber: Int.max / 2)
        return a.from <= bEnd && b.from <= aEnd
    }

    // MARK: - A site's rules

    /// The site's rules; the defaults when none were saved.
    public func rules(siteId: SiteID) async throws -> SiteRules {
        try await existingSite(siteId)
        guard case .siteRules(_, let rules)? = try await repository.timesheetSetting(.siteRules(siteId)) else {
            return SiteRules()
        }
        return rules
    }

    public func saveRules(
        siteId: SiteID, policy: TimesheetPolicy, defaultScheduleId: ScheduleID?, actor: LedgerActor
    ) async throws {
        try await existingSite(siteId)
        let minutes: [(String, Int?)] = [
            ("lateGraceMinutes", policy.lateGraceMinutes), ("earlyGraceMinutes", policy.earlyGraceMinutes),
            ("halfDayBelowMinutes", policy.halfDayBelowMinutes), ("absentBelowMinutes", policy.absentBelowMinutes),
            ("breakMinimumMinutes", policy.breakMinimumMinutes),
        ]
        for case (let field, let value?) in minutes where !(0...1440).contains(value) {
            throw DomainError.field(field, String(value), expected: "0 to 1440 minutes", kind: .unprocessable)
        }
        guard policy.breakRules.count <= 10 else {
            throw DomainError.field("breakRules", "\(policy.breakRules.count) rules", expected: "at most 10")
        }
        for (index, rule) in policy.breakRules.enumerated() {
            guard (1...1440).contains(rule.workedOverMinutes), (1...240).contains(rule.breakMinutes) else {
                throw DomainError.field(
                    "breakRules[\(index)]", "\(rule.workedOverMinutes) min → \(rule.breakMinutes) min",
                    expected: "workedOverMinutes 1 to 1440 and breakMinutes 1 to 240", kind: .unprocessable)
            }
        }
        if let id = defaultScheduleId, try await repository.timesheetSetting(.schedule(id)) == nil {
            throw DomainError.field(
                "defaultScheduleId", InputRules.shown(id.rawValue), expected: "the id of a schedule",
                kind: .unprocessable)
        }
        try await save(
            .siteRules(siteId, SiteRules(policy: policy, defaultScheduleId: defaultScheduleId)), actor: actor)
    }

    // MARK: - Holidays

    public func holidays(siteId: SiteID) async throws -> [(date: LocalDate, name: String)] {
        try await existingSite(siteId)
        return try await repository.holidays(siteId: siteId, dates: nil).map { ($0.date, $0.name) }
    }

    public func saveHoliday(siteId: SiteID, date: LocalDate, name: String, actor: LedgerActor) async throws {
        try await existingSite(siteId)
        try InputRules.text("name", name, maxLength: 200, allowEmpty: false)
        try await save(.holiday(Holiday(siteId: siteId, date: date, name: name)), actor: actor)
    }

    public func deleteHoliday(siteId: SiteID, date: LocalDate, actor: LedgerActor) async throws {
        try await existingSite(siteId)
        guard try await repository.timesheetSetting(.holiday(siteId, date)) != nil else {
            throw DomainError(.notFound, "Not found", "site '\(siteId)' has no holiday on \(date)")
        }
        try await remove(.holiday(siteId, date), actor: actor)
    }

    // MARK: - Leave

    public func leave(userId: UserID?, dates: ClosedRange<LocalDate>) async throws -> [LeaveDay] {
        try await repository.leaveDays(userId: userId, dates: dates)
    }

    /// Marks `date` as leave. Without a site, the employee's assigned site that day.
    public func saveLeave(
        userId: UserID, date: LocalDate, siteId: SiteID?, type: String, note: String?, actor: LedgerActor
    ) async throws -> LeaveDay {
        guard try await repository.employee(id: userId) != nil else {
            throw DomainError(.notFound, "Not found", "no employee has the id '\(userId)'")
        }
        try InputRules.text("type", type, maxLength: 40, allowEmpty: false)
        if let note { try InputRules.text("note", note, maxLength: 500) }
        let site: SiteID
        if let siteId {
            try await siteInBody(siteId)
            site = siteId
        } else if let assigned = try await assignments(userId: userId).first(where: { $0.covers(date) }) {
            site = assigned.siteId
        } else {
            throw DomainError.field(
                "siteId", nil, expected: "a site: employee '\(userId)' has no schedule assignment on \(date)",
                kind: .unprocessable)
        }
        let day = LeaveDay(userId: userId, siteId: site, date: date, type: type, note: note)
        try await save(.leave(day), actor: actor)
        return day
    }

    public func deleteLeave(userId: UserID, date: LocalDate, actor: LedgerActor) async throws {
        guard try await repository.timesheetSetting(.leave(userId, date)) != nil else {
            throw DomainError(.notFound, "Not found", "employee '\(userId)' has no leave on \(date)")
        }
        try await remove(.leave(userId, date), actor: actor)
    }

    // MARK: - Storage with its audit row

    /// Stores a setting with its ledger row (before and after); pay cycles are saved here too.
    func save(_ setting: TimesheetSetting, actor: LedgerActor) async throws {
        let now = environment.now()
        let before = try await repository.timesheetSetting(setting.key)
        let change = LedgerChange(
            before: before.map(TimesheetSettingCodec.auditText), after: TimesheetSettingCodec.auditText(setting))
        try await repository.putTimesheetSetting(
            setting, updatedAt: now,
            audit: LedgerEvent.timesheetSetting(
                setting.key, userId: setting.userId, change: change, removed: false, actor: actor, now: now))
    }

    private func remove(_ key: TimesheetSettingKey, actor: LedgerActor) async throws {
        let before = try await repository.timesheetSetting(key)
        let change = LedgerChange(before: before.map(TimesheetSettingCodec.auditText), after: nil)
        let audit = LedgerEvent.timesheetSetting(
            key, userId: before?.userId, change: change, removed: true, actor: actor, now: environment.now())
        guard try await repository.deleteTimesheetSetting(key, audit: audit) else {
            throw DomainError(.notFound, "Not found", "no \(key.kind.rawValue) has the id '\(key.id)'")
        }
    }

    /// A site named in a body: an unknown one is a semantic refusal (422, docs/decisions/0002).
    private func siteInBody(_ siteId: SiteID) async throws {
        try InputRules.identifier("siteId", siteId.rawValue)
        guard try await repository.site(id: siteId) != nil else {
            throw DomainError.field("siteId", siteId.rawValue, expected: "the id of a site", kind: .unprocessable)
        }
    }

    /// A site named in the path: unknown is 404.
    private func existingSite(_ siteId: SiteID) async throws {
        try InputRules.identifier("siteId", siteId.rawValue)
        guard try await repository.site(id: siteId) != nil else {
            throw DomainError(.notFound, "Not found", "no site has the id '\(siteId)'")
        }
    }
}

extension LedgerEvent {
    /// A timesheet setting saved or removed. Leave (its type and note can be health data) goes in
    /// the row's erasable part.
    static func timesheetSetting(
        _ key: TimesheetSettingKey, userId: UserID?, change: LedgerChange, removed: Bool, actor: LedgerActor,
        now: Date
    ) -> LedgerEvent {
        let field = key.kind == .leave ? "leave" : key.kind.rawValue
        return admin(
            removed ? .timesheetSettingRemoved : .timesheetSettingSaved, target: "\(key.kind.rawValue)/\(key.id)",
            userId: userId, changes: [field: change], actor: actor, now: now)
    }
}
