import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `TimesheetService` and `PayPeriodService` read and write: the repository protocols they
/// need, no more.
public typealias TimesheetServiceStorage = AttendanceRepository & AdminRepository & AuthRepository
    & PayPeriodRepository & TimesheetRepository

/// Which timesheet rows: local dates `from` through `through` (both included), optionally one
/// site's or one employee's.
public struct TimesheetQuery: Hashable, Sendable {
    public var from: LocalDate
    public var through: LocalDate
    public var siteId: SiteID?
    public var userId: UserID?

    public init(from: LocalDate, through: LocalDate, siteId: SiteID? = nil, userId: UserID? = nil) {
        self.from = from
        self.through = through
        self.siteId = siteId
        self.userId = userId
    }
}

/// One employee's part of a timesheet.
public struct EmployeeTimesheet: Sendable {
    public var employee: EmployeeRecord
    public var days: [TimesheetDay]
    public var weeks: [TimesheetWeek]
}

/// Reads what a timesheet needs and runs `TimesheetCalculator`, employees in id order and a
/// chunk of them at a time: an export of any size holds one chunk's sessions, not the company's.
public struct TimesheetService: Sendable {
    /// The store each timesheet reads, chosen when it starts: one store for the whole of it.
    private let storage: @Sendable () -> any TimesheetServiceStorage
    private let environment: ServerEnvironment
    /// Employees read and computed together (one session query each).
    static let chunkSize = 500

    public init(repository: any TimesheetServiceStorage, environment: ServerEnvironment) {
        self.storage = { repository }
        self.environment = environment
    }

    /// Timesheets read where `reads` sends heavy reads (a standby while it keeps up).
    public init(reads: ReadRoute, environment: ServerEnvironment) {
        self.storage = { reads.reading().repository }
        self.environment = environment
    }

    /// Checks a query's range and filters; each refusal names the field.
    public func validate(_ query: TimesheetQuery) async throws { try await validate(query, in: storage()) }

    private func validate(_ query: TimesheetQuery, in repository: any TimesheetServiceStorage) async throws {
        _ = try DateRange.checked(
            from: query.from, to: query.through, maximumDays: TimesheetConfiguration.maximumDays)
        if let siteId = query.siteId {
            try InputRules.identifier("siteId", siteId.rawValue)
            guard try await repository.site(id: siteId) != nil else {
                throw DomainError(.notFound, "Not found", "no site has the id '\(siteId)'")
            }
        }
        if let userId = query.userId {
            try InputRules.identifier("userId", userId.rawValue)
            guard try await repository.employee(id: userId) != nil else {
                throw DomainError(.notFound, "Not found", "no employee has the id '\(userId)'")
            }
        }
    }

    /// Calls `body` with each employee who has a row, in id order, after `cursor` (an employee
    /// id) and at most `limit` of them; returns the last employee given when more may follow.
    @discardableResult
    public func forEachEmployee(
        _ query: TimesheetQuery, after cursor: UserID? = nil, limit: Int = .max,
        _ body: (EmployeeTimesheet) async throws -> Void
    ) async throws -> UserID? {
        var reader = try await open(query, after: cursor)
        var given = 0
        while given < limit, let chunk = try await reader.next() {
            for employee in chunk.prefix(limit - given) {
                try await body(employee)
                given += 1
                if given == limit { return reader.hasMore(after: employee.employee.id) ? employee.employee.id : nil }
            }
        }
        return nil
    }

    /// Reads what every employee's rows need but their sessions; `TimesheetReader.next` then
    /// reads and computes a chunk of employees at a time.
    /// `ignoringLocks`: the live rows even inside locked pay periods (a period's exceptions).
    public func open(
        _ query: TimesheetQuery, after cursor: UserID? = nil, ignoringLocks: Bool = false
    ) async throws -> TimesheetReader {
        let repository = storage()
        try await validate(query, in: repository)
        let calculator = try await calculator(for: query, now: environment.now(), in: repository)
        let dates = calculator.first...calculator.last
        var reader = TimesheetReader(
            repository: repository, query: query, calculator: calculator,
            window: TimesheetInput.sessionWindow(from: query.from, through: query.through))
        // Every site's assignments and leave, even for one site's rows: an assignment elsewhere
        // decides that a day here has no schedule. The rows are filtered afterwards.
        reader.assignments = Dictionary(
            grouping: try await repository.assignments(userId: nil), by: \.userId)
        reader.leave = Dictionary(
            grouping: try await repository.leaveDays(userId: nil, dates: dates), by: \.userId)
        for device in try await repository.devices(userId: query.userId) where device.revokedAt == nil {
            let known = reader.devices[device.userId]?.lastHeard
            reader.devices[device.userId] = (true, [known, device.lastSeenAt].compactMap { $0 }.max())
        }
        for target in try await repository.pendingRequestTargets() {
            if let key = target.sessionKey {
                reader.pendingSessions.insert(key)
            } else if let site = target.siteId, let at = target.checkInAt, query.siteId == nil || site == query.siteId {
                reader.pendingAdditions[target.userId, default: []].append(
                    TimesheetInput.PendingAddition(userId: target.userId, siteId: site, checkInAt: at))
            }
        }
        reader.ignoringLocks = ignoringLocks
        reader.employees = try await repository.employees()
            .filter { query.userId == nil || $0.id == query.userId }
            .filter { employee in cursor.map { employee.id.rawValue > $0.rawValue } ?? true }
            .sorted { $0.id.rawValue < $1.id.rawValue }
        return reader
    }

    /// The calculator for a query: every site's zone, rules and holidays, and every schedule.
    func calculator(
        for query: TimesheetQuery, now: Date, in repository: any TimesheetServiceStorage
    ) async throws -> TimesheetCalculator {
        let rules = try await repository.siteRules()
        let first = query.from.weekStart
        let holidays = try await repository.holidays(
            siteId: nil, dates: first...query.through.weekStart.adding(days: 6))
        var sites: [SiteID: TimesheetSite] = [:]
        for site in try await repository.sites() {
            // Zones are checked when a site is saved; UTC only if the zone database lost one.
            var entry = TimesheetSite(
                id: site.id, timeZone: TimeZone(identifier: site.timeZone) ?? TimeZone(identifier: "UTC")!)
            if let saved = rules[site.id] {
                entry.policy = saved.policy
                entry.defaultScheduleId = saved.defaultScheduleId
            }
            for holiday in holidays where holiday.siteId == site.id { entry.holidays[holiday.date] = holiday.name }
            sites[site.id] = entry
        }
        let schedules = try await repository.schedules()
        return TimesheetCalculator(
            from: query.from, through: query.through, now: now, sites: sites,
            schedules: Dictionary(schedules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }))
    }
}

/// A timesheet being read, a chunk of employees at a time (`TimesheetService.open`).
public struct TimesheetReader: Sendable {
    let repository: any TimesheetServiceStorage
    let query: TimesheetQuery
    let calculator: TimesheetCalculator
    let window: ClosedRange<Date>
    var assignments: [UserID: [ScheduleAssignment]] = [:]
    var leave: [UserID: [LeaveDay]] = [:]
    var devices: [UserID: (hasDevice: Bool, lastHeard: Date?)] = [:]
    var pendingSessions: Set<SessionKey> = []
    var pendingAdditions: [UserID: [TimesheetInput.PendingAddition]] = [:]
    var employees: [EmployeeRecord] = []
    /// Live rows even inside locked pay periods (a period's exceptions).
    var ignoringLocks = false
    private var position = 0

    init(
        repository: any TimesheetServiceStorage, query: TimesheetQuery, calculator: TimesheetCalculator,
        window: ClosedRange<Date>
    ) {
        self.repository = repository
        self.query = query
        self.calculator = calculator
        self.window = window
    }

    /// The next employees with rows (one query for up to `TimesheetService.chunkSize` of them), in
    /// id order; nil when every employee has been read.
    public mutating func next() async throws -> [EmployeeTimesheet]? {
        while position < employees.count {
            let chunk = employees[position..<min(position + TimesheetService.chunkSize, employees.count)]
            position += chunk.count
            let sessions = Dictionary(
                grouping: try await repository.timesheetSessions(
                    users: chunk.map(\.id), siteId: query.siteId, window: window),
                by: \.userId)
            // Locked periods are read with each chunk's kept rows, so a period reopened during a
            // long export gives live rows from then on, never neither.
            let dates = calculator.first...calculator.last
            let locked =
                ignoringLocks ? [] : try await repository.payPeriods(overlapping: dates).filter { $0.state == .locked }
            var frozen: [UserID: [TimesheetDay]] = [:]
            if !locked.isEmpty {
                for day in try await repository.lockedDays(users: chunk.map(\.id), dates: dates) {
                    guard var row = TimesheetDayCodec.decode(day.row) else { continue }
                    row.flags.insert(.locked)
                    frozen[day.userId, default: []].append(row)
                }
            }
            let found = chunk.compactMap { employee -> EmployeeTimesheet? in
                let input = EmployeeTimesheetInput(
                    userId: employee.id, sessions: sessions[employee.id] ?? [],
                    assignments: Self.endingAtDeactivation(assignments[employee.id] ?? [], employee),
                    leave: leave[employee.id] ?? [],
                    hasDevice: devices[employee.id]?.hasDevice ?? false, lastHeard: devices[employee.id]?.lastHeard,
                    pendingRequestSessions: pendingSessions, pendingAdditions: pendingAdditions[employee.id] ?? [])
                let live = calculator.wholeWeeks(input)
                let days = PayPeriodLock.merge(live: live, locked: frozen[employee.id] ?? [], periods: locked)
                    .filter { query.siteId == nil || $0.siteId == query.siteId }
                let (shown, weeks) = calculator.finish(userId: employee.id, days)
                return shown.isEmpty ? nil : EmployeeTimesheet(employee: employee, days: shown, weeks: weeks)
            }
            if !found.isEmpty { return found }
        }
        return nil
    }

    /// A deactivated employee is expected nowhere after the (UTC) day they were deactivated.
    static func endingAtDeactivation(
        _ assignments: [ScheduleAssignment], _ employee: EmployeeRecord
    ) -> [ScheduleAssignment] {
        guard let deactivated = employee.deactivatedAt else { return assignments }
        let last = LocalDate(dayNumber: Int((deactivated.timeIntervalSince1970 / 86_400).rounded(.down)))
        return assignments.compactMap { assignment in
            guard assignment.from <= last else { return nil }
            var ended = assignment
            ended.through = min(assignment.through ?? last, last)
            return ended
        }
    }

    /// Whether an employee after `id` may still have rows.
    func hasMore(after id: UserID) -> Bool { employees.last.map { $0.id.rawValue > id.rawValue } ?? false }
}
