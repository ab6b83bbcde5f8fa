// The timesheet benchmark's writer (not a test): fills a new database with a month of a company's
// sessions, so that `attendance timesheets --format csv|xlsx` can be timed on it. bench/timesheets/run
// drives it on both backends.
//
//   timesheet-bench --database PATH_OR_URL [--employees 10000] [--month 2026-10] [--seed 42] [--batch ROWS]
//
// Two sites (Europe/Berlin, beacon major 1; America/New_York, major 2), half the employees at each,
// one office schedule (Monday to Friday 09:00–17:00, 480 minutes expected), each site's rules (5
// minutes' grace for lateness, a 30-minute break owed after 360 minutes worked, a half day below
// 240 minutes) and an assignment per employee from the month's first day, open-ended. On a workday
// an employee is absent (3 %), works a night (21:30–06:00, 1.5 %; then rests the next day), leaves
// a session open (1.5 %), works one session (49 %: through lunch, or a morning only) or two (45 %:
// about 08:45–12:30 and 13:15–17:30 by the site's clock; one arrival in ten is late); on a weekend
// one in twenty works a few hours. About 1 session per employee per calendar day: 10,000 employees
// make about 315,000 in October 2026 (22 workdays).
//
// The sites, the employees, the schedule, the rules and the first assignment at each site go through
// AdminService and TimesheetSettingsService (actor `.adminToken`, audit rows included). The other
// assignments are written straight to the `schedule_assignments` table:
// `assign` reads every assignment to refuse an overlap, so ten thousand of them would take minutes.
// The sessions are written straight to the `sessions` table in large transactions, in the order a
// server receives them (a day at a time, by check-in). The timesheet reads sessions, not the ledger:
// no ledger rows are written for them (the ledger is not needed for this benchmark), and no devices
// (so no day is provisional).
// SQLite: a GRDB DatabaseQueue on the migrated file. PostgreSQL: multi-row INSERTs. The database
// must be new (no sites).
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import BenchSupport
import Foundation
import GRDB
import Logging
import PostgresNIO

// MARK: - Options

struct Options {
    var database = ""
    var employees = 10_000
    var month = LocalDate(year: 2026, month: 10, day: 1)!
    var seed: UInt64 = 42
    var batch: Int?
    /// Write nothing: time the month's timesheet of a database an earlier run filled.
    var computeOnly = false

    static let usage = """
        usage: timesheet-bench --database PATH_OR_URL [--employees 10000] [--month 2026-10] [--seed 42] \
        [--batch ROWS] [--compute]
        """

    init(_ arguments: [String]) throws {
        var rest = BenchArguments(arguments, usage: Self.usage)
        while let argument = rest.next() {
            switch argument {
            case "--database": database = try rest.value(argument)
            case "--employees": employees = try rest.number(argument)
            case "--month":
                let text = try rest.value(argument)
                guard let first = LocalDate(text + "-01") else {
                    throw BenchError("--month is '\(text)'; expected YYYY-MM")
                }
                month = first
            case "--seed": seed = UInt64(try rest.number(argument))
            case "--batch": batch = try rest.number(argument)
            case "--compute": computeOnly = true
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: throw rest.unknown(argument)
            }
        }
        guard !database.isEmpty else { throw BenchError(Self.usage) }
        guard employees >= 2 else { throw BenchError("--employees \(employees): two sites need at least 2") }
    }

    var isPostgres: Bool { isPostgresURL(database) }
    var days: [LocalDate] {
        month.through(month.adding(days: LocalDate.daysIn(month: month.month, year: month.year) - 1))
    }
}

// MARK: - Deterministic randomness

/// The project's SplitMix64 (AttendanceModels): the same seed gives the same month on both backends.
extension SplitMix64 {
    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
    mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
}

/// A time to the millisecond, as devices send them.
func millis(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

// MARK: - The month's sessions

/// A site's wall clock: a local date and minute (past 1440 for the next day) to an instant.
struct SiteClock {
    let site: SiteRecord
    let zone: TimeZone
    /// Seconds east of UTC by local hour (hours since 1970 on the wall clock).
    private var offsets: [Int: Int] = [:]

    init(site: SiteRecord) throws {
        guard let zone = TimeZone(identifier: site.timeZone) else { throw BenchError("no zone \(site.timeZone)") }
        self.site = site
        self.zone = zone
    }

    mutating func instant(_ date: LocalDate, minute: Double) -> Double {
        let local = Double(date.dayNumber) * 86_400 + minute * 60
        let hour = Int((local / 3_600).rounded(.down))
        let offset: Int
        if let known = offsets[hour] {
            offset = known
        } else {
            let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(hour * 3_600)))
            offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(hour * 3_600 - guess)))
            offsets[hour] = offset
        }
        return millis(local - Double(offset))
    }
}

/// One `sessions` row, as the server writes it (the columns the timesheet reads, and every NOT NULL).
struct SessionRow {
    var key: String
    var userId: String
    var siteId: String
    var deviceId: String
    var checkInAt: Double
    var checkOutAt: Double?
    var checkOutReason: String?
    var lastSeenAt: Double
    var source: String
    var createdAt: Double
    var checkInReason: String?
    var checkOutSource: String?
    var appVersion: String
    var rule: String
}

struct Worker {
    let id: UserID
    let device: DeviceID
    let site: Int
}

/// The company's days, one at a time, every employee's sessions of the day by check-in.
struct Company {
    let workers: [Worker]
    var clocks: [SiteClock]
    var rng: SplitMix64
    private(set) var kinds: [String: Int] = [:]
    /// Who worked last night: they rest today (their night's morning hours count on today).
    private var nightBefore: Set<UserID> = []

    init(workers: [Worker], clocks: [SiteClock], seed: UInt64) {
        self.workers = workers
        self.clocks = clocks
        rng = SplitMix64(seed: seed)
    }

    mutating func day(_ date: LocalDate) -> [SessionRow] {
        var rows: [SessionRow] = []
        rows.reserveCapacity(workers.count * 2)
        let workday = date.weekday.rawValue <= 5
        let rested = nightBefore
        nightBefore = []
        for worker in workers {
            if rested.contains(worker.id) {
                kinds["rest days after a night", default: 0] += 1
            } else if workday {
                self.workday(worker, date, into: &rows)
            } else {
                weekend(worker, date, into: &rows)
            }
        }
        return rows.sorted { ($0.checkInAt, $0.key) < ($1.checkInAt, $1.key) }
    }

    private mutating func arrival() -> Double {
        let onTime = 8 * 60 + 45 + rng.uniform(-15, 15)
        return rng.chance(0.1) ? onTime + rng.uniform(20, 60) : onTime
    }

    private mutating func workday(_ worker: Worker, _ date: LocalDate, into rows: inout [SessionRow]) {
        let draw = rng.uniform(0, 1)
        switch draw {
        case ..<0.03:
            kinds["absent days", default: 0] += 1
        case ..<0.045:
            kinds["night sessions", default: 0] += 1
            nightBefore.insert(worker.id)
            rows.append(
                session(
                    worker, date, from: 21 * 60 + 30 + rng.uniform(-30, 30),
                    to: 30 * 60 + rng.uniform(-30, 30)))
        case ..<0.06:
            kinds["open sessions", default: 0] += 1
            rows.append(session(worker, date, from: arrival(), to: nil))
        case ..<0.55:
            let morningOnly = rng.chance(0.3)
            kinds[morningOnly ? "morning-only days" : "one-session days", default: 0] += 1
            let end = morningOnly ? 12 * 60 + 45 + rng.uniform(-30, 30) : 17 * 60 + 15 + rng.uniform(-30, 30)
            rows.append(session(worker, date, from: arrival(), to: end))
        default:
            kinds["two-session days", default: 0] += 1
            rows.append(session(worker, date, from: arrival(), to: 12 * 60 + 30 + rng.uniform(-10, 15)))
            rows.append(
                session(
                    worker, date, from: 13 * 60 + 15 + rng.uniform(-10, 10),
                    to: 17 * 60 + 30 + rng.uniform(-45, 30)))
        }
    }

    private mutating func weekend(_ worker: Worker, _ date: LocalDate, into rows: inout [SessionRow]) {
        guard rng.chance(0.05) else { return }
        kinds["weekend sessions", default: 0] += 1
        let start = 10 * 60 + rng.uniform(-60, 60)
        rows.append(session(worker, date, from: start, to: start + rng.uniform(180, 300)))
    }

    /// A session from `from` to `to` (minutes after the date's local midnight); open if `to` is nil:
    /// heard from for two to seven hours, then nothing.
    private mutating func session(_ worker: Worker, _ date: LocalDate, from: Double, to: Double?) -> SessionRow {
        let site = clocks[worker.site].site
        let checkIn = clocks[worker.site].instant(date, minute: from)
        let checkOut = to.map { clocks[worker.site].instant(date, minute: $0) }
        let manual = rng.chance(0.03)
        let key = SessionKey.derive(
            user: worker.id, device: worker.device, site: site.beacon,
            checkIn: Date(timeIntervalSince1970: checkIn))
        return SessionRow(
            key: key.rawValue, userId: worker.id.rawValue, siteId: site.id.rawValue, deviceId: worker.device.rawValue,
            checkInAt: checkIn, checkOutAt: checkOut,
            checkOutReason: checkOut == nil
                ? nil : manual ? "left for the day" : rng.pick(["regionExit", "regionExit", "rangingSilence"]),
            lastSeenAt: checkOut ?? millis(checkIn + rng.uniform(2 * 3_600, 7 * 3_600)),
            source: (manual ? EventSource.manual : .automatic).rawValue,
            createdAt: millis(checkIn + rng.uniform(0.05, 2.5)),
            checkInReason: manual ? rng.pick(["Bluetooth was off", "forgot to open the app"]) : nil,
            checkOutSource: checkOut == nil ? nil : (manual ? EventSource.manual : .automatic).rawValue,
            appVersion: rng.pick(["1.4.2", "1.4.2", "1.4.2", "1.5.0"]),
            rule: manual ? "manual" : rng.pick(["strongMedian", "strongMedian", "early", "walking", "dwell"]))
    }
}

// MARK: - Writers

protocol RowWriter {
    func existingSessions() async throws -> Int
    func write(assignments: [ScheduleAssignment]) async throws
    func write(_ rows: [SessionRow]) async throws
    func finish() async throws
}

/// SQLite: one transaction per batch through a DatabaseQueue on the repository's file.
final class SQLiteWriter: RowWriter {
    let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    func existingSessions() async throws -> Int {
        try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") ?? 0 }
    }

    func write(assignments: [ScheduleAssignment]) async throws {
        let now = Date().timeIntervalSince1970
        try await queue.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO schedule_assignments (id, user_id, site_id, schedule_id, from_date, through_date,
                                                      updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
            for row in assignments {
                try statement.execute(arguments: [
                    row.id.rawValue, row.userId.rawValue, row.siteId.rawValue, row.scheduleId.rawValue,
                    row.from.description, row.through?.description, now,
                ])
            }
        }
    }

    func write(_ rows: [SessionRow]) async throws {
        try await queue.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO sessions (session_key, user_id, site_id, device_id, check_in_at, check_out_at, check_out_reason,
                                          last_seen_at, source, created_at, check_in_reason, check_out_source, app_version,
                                          evidence_rule, corrected)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for row in rows {
                try statement.execute(arguments: [
                    row.key, row.userId, row.siteId, row.deviceId, row.checkInAt, row.checkOutAt, row.checkOutReason,
                    row.lastSeenAt, row.source, row.createdAt, row.checkInReason, row.checkOutSource, row.appVersion,
                    row.rule, false,
                ])
            }
        }
    }

    /// Folds the WAL back into the file, so the timed commands start from a checkpointed database.
    func finish() async throws {
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}

/// PostgreSQL: one multi-row INSERT per batch.
final class PostgresWriter: RowWriter {
    static let sessionColumns = 15
    let postgres: BenchPostgres
    var client: PostgresClient { postgres.client }
    var logger: Logger { postgres.logger }

    init(url: String, logger: Logger) throws { postgres = try BenchPostgres(url: url, logger: logger) }

    func existingSessions() async throws -> Int { try await postgres.count("sessions") }

    func write(assignments: [ScheduleAssignment]) async throws {
        var bindings = PostgresBindings(capacity: assignments.count * 7)
        var values: [String] = []
        let now = Date().timeIntervalSince1970
        for row in assignments {
            values.append(BenchPostgres.placeholders(bindings.count + 1, 7))
            bindings.append(row.id.rawValue)
            bindings.append(row.userId.rawValue)
            bindings.append(row.siteId.rawValue)
            bindings.append(row.scheduleId.rawValue)
            bindings.append(row.from.description)
            bindings.append(row.through?.description)
            bindings.append(now)
        }
        let sql = """
            INSERT INTO schedule_assignments (id, user_id, site_id, schedule_id, from_date, through_date, updated_at)
            VALUES \(values.joined(separator: ", "))
            """
        try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    func write(_ rows: [SessionRow]) async throws {
        var bindings = PostgresBindings(capacity: rows.count * Self.sessionColumns)
        var values: [String] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            values.append(BenchPostgres.placeholders(bindings.count + 1, Self.sessionColumns))
            bindings.append(row.key)
            bindings.append(row.userId)
            bindings.append(row.siteId)
            bindings.append(row.deviceId)
            bindings.append(row.checkInAt)
            bindings.append(row.checkOutAt)
            bindings.append(row.checkOutReason)
            bindings.append(row.lastSeenAt)
            bindings.append(row.source)
            bindings.append(row.createdAt)
            bindings.append(row.checkInReason)
            bindings.append(row.checkOutSource)
            bindings.append(row.appVersion)
            bindings.append(row.rule)
            bindings.append(false)
        }
        let sql = """
            INSERT INTO sessions (session_key, user_id, site_id, device_id, check_in_at, check_out_at,
                                  check_out_reason, last_seen_at, source, created_at, check_in_reason,
                                  check_out_source, app_version, evidence_rule, corrected)
            VALUES \(values.joined(separator: ", "))
            """
        try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// Statistics as autovacuum would have left them on a database this size.
    func finish() async throws {
        try await client.query("VACUUM ANALYZE sessions", logger: logger)
        try await client.query("VACUUM ANALYZE schedule_assignments", logger: logger)
    }
}

// MARK: - Main

/// The sites, the employees, the schedule, each site's rules and one assignment at each site,
/// through the server's own services (audit rows included). Returns the employees by site.
func createDirectory(_ options: Options, logger: Logger) async throws -> (sites: [SiteRecord], workers: [Worker]) {
    let repository: any ServerRepository =
        options.isPostgres
        ? try await PostgresRepository.connect(url: options.database, logger: logger)
        : try SQLiteRepository.open(path: options.database)
    defer { repository.shutdown() }
    guard try await repository.sites().isEmpty else {
        throw BenchError("\(options.database) already holds sites; the bench needs a new database")
    }
    let admin = AdminService(repository: repository, environment: .live)
    var sites: [SiteRecord] = []
    for (major, zone) in [(1, "Europe/Berlin"), (2, "America/New_York")] {
        sites.append(
            try await admin.createSite(
                AdminService.SiteInput(
                    name: zone.split(separator: "/").last.map(String.init) ?? zone, timeZone: zone,
                    beaconUUID: SiteBeacon.defaultUUID.uuidString, major: major), actor: .adminToken))
    }

    let settings = TimesheetSettingsService(repository: repository, environment: .live)
    let office = ScheduledShift(startMinute: 9 * 60, endMinute: 17 * 60, expectedMinutes: 480)
    let schedule = try await settings.saveSchedule(
        WorkSchedule(
            id: "office", name: "Office, Monday to Friday 09:00–17:00",
            shifts: Dictionary(uniqueKeysWithValues: Weekday.allCases.prefix(5).map { ($0, office) })),
        actor: .adminToken)
    var policy = TimesheetPolicy()
    policy.lateGraceMinutes = 5
    policy.breakRules = [BreakRule(workedOverMinutes: 360, breakMinutes: 30)]
    policy.halfDayBelowMinutes = 240
    for site in sites {
        try await settings.saveRules(siteId: site.id, policy: policy, defaultScheduleId: nil, actor: .adminToken)
    }

    var workers: [Worker] = []
    var lastReport = ContinuousClock.now
    for number in 1...options.employees {
        let label = String(format: "%05d", number)
        let employee = try await admin.createEmployee(
            name: "Employee \(label)", externalId: "E\(label)", email: "employee\(label)@example.com",
            actor: .adminToken)
        let site = number <= (options.employees + 1) / 2 ? 0 : 1
        workers.append(Worker(id: employee.id, device: DeviceID("dev-" + employee.id.rawValue), site: site))
        if ContinuousClock.now - lastReport > .seconds(15) {
            print("  \(number) of \(options.employees) employees created")
            lastReport = ContinuousClock.now
        }
    }
    for site in sites.indices {
        guard let first = workers.first(where: { $0.site == site }) else { continue }
        _ = try await settings.assign(
            userId: first.id, siteId: sites[site].id, scheduleId: schedule.id, from: options.month, through: nil,
            actor: .adminToken)
    }
    return (sites, workers)
}

func run(_ options: Options) async throws {
    var logger = Logger(label: "timesheet-bench")
    logger.logLevel = .warning
    let backend = options.isPostgres ? "postgresql" : "sqlite"
    let directoryStart = ContinuousClock.now
    let (sites, workers) = try await createDirectory(options, logger: logger)
    print(
        "\(backend): \(sites.count) sites, \(workers.count) employees, a schedule, each site's rules and "
            + String(
                format: "%d assignments created through the services in %.2f s", sites.count,
                seconds(since: directoryStart)))

    let writer: any RowWriter =
        options.isPostgres
        ? try PostgresWriter(url: options.database, logger: logger) : try SQLiteWriter(path: options.database)
    guard try await writer.existingSessions() == 0 else {
        throw BenchError("\(options.database) already holds sessions; the bench needs a new database")
    }
    let batchSize = options.batch ?? (options.isPostgres ? 4_000 : 50_000)
    guard !options.isPostgres || batchSize * PostgresWriter.sessionColumns <= 65_535 else {
        throw BenchError("--batch \(batchSize): PostgreSQL takes at most 4369 rows of 15 columns in one statement")
    }

    let assignmentsStart = ContinuousClock.now
    let firsts = Set(sites.indices.compactMap { site in workers.first { $0.site == site }?.id })
    let assignments = workers.enumerated().filter { !firsts.contains($0.element.id) }.map { index, worker in
        ScheduleAssignment(
            id: AssignmentID(String(format: "asg-bench-%06d", index + 1)), userId: worker.id,
            siteId: sites[worker.site].id, scheduleId: "office", from: options.month)
    }
    for start in stride(from: 0, to: assignments.count, by: 4_000) {
        try await writer.write(assignments: Array(assignments[start..<min(start + 4_000, assignments.count)]))
    }
    print(
        "\(backend): \(assignments.count) more assignments written "
            + String(format: "in %.2f s", seconds(since: assignmentsStart)))

    var company = Company(workers: workers, clocks: try sites.map(SiteClock.init), seed: options.seed)
    var written = 0
    var generateSeconds = 0.0
    var writeSeconds = 0.0
    var batch: [SessionRow] = []
    batch.reserveCapacity(batchSize)
    var lastReport = ContinuousClock.now
    let days = options.days
    for date in days {
        let started = ContinuousClock.now
        let rows = company.day(date)
        generateSeconds += seconds(since: started)
        var next = rows.startIndex
        while next < rows.endIndex {
            let take = min(batchSize - batch.count, rows.endIndex - next)
            batch.append(contentsOf: rows[next..<next + take])
            next += take
            if batch.count == batchSize {
                let started = ContinuousClock.now
                try await writer.write(batch)
                writeSeconds += seconds(since: started)
                written += batch.count
                batch.removeAll(keepingCapacity: true)
                if ContinuousClock.now - lastReport > .seconds(15) {
                    print("  \(written) sessions written (\(date))")
                    lastReport = ContinuousClock.now
                }
            }
        }
    }
    if !batch.isEmpty {
        let started = ContinuousClock.now
        try await writer.write(batch)
        writeSeconds += seconds(since: started)
        written += batch.count
    }
    let finishStart = ContinuousClock.now
    try await writer.finish()
    let finishSeconds = seconds(since: finishStart)
    let total = try await writer.existingSessions()
    print(
        "\(backend): \(written) sessions written in batches of \(batchSize) "
            + String(
                format: "(rows built %.1f s, inserts %.1f s, %@ %.1f s)", generateSeconds, writeSeconds,
                options.isPostgres ? "VACUUM ANALYZE" : "WAL checkpoint", finishSeconds))
    print("  " + company.kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    print(
        "employees: \(workers.count); sessions: \(total) over \(days.count) days "
            + "(\(days.first!) to \(days.last!)); "
            + String(format: "%.2f per employee per day", Double(total) / Double(workers.count * days.count)))
    guard total == written else { throw BenchError("expected \(written) sessions, found \(total)") }
}

/// The month's rows computed by `TimesheetService` (read and compute, no file): the issue's
/// "timesheets for 10,000 employees x 31 days in 5 s", apart from formatting them.
func compute(_ options: Options) async throws {
    var logger = Logger(label: "timesheet-bench")
    logger.logLevel = .warning
    let repository: any ServerRepository =
        options.isPostgres
        ? try await PostgresRepository.connect(url: options.database, logger: logger)
        : try SQLiteRepository.open(path: options.database)
    defer { repository.shutdown() }
    let query = TimesheetQuery(from: options.month, through: options.days.last ?? options.month)
    let started = ContinuousClock.now
    var reader = try await TimesheetService(repository: repository, environment: .live).open(query)
    var employees = 0
    var rows = 0
    var weeks = 0
    while let chunk = try await reader.next() {
        employees += chunk.count
        rows += chunk.reduce(0) { $0 + $1.days.count }
        weeks += chunk.reduce(0) { $0 + $1.weeks.count }
    }
    print(
        "computed \(rows) rows and \(weeks) weeks of \(employees) employees "
            + String(format: "in %.2f s", seconds(since: started)))
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let started = ContinuousClock.now
    if options.computeOnly {
        try await compute(options)
        exit(0)
    }
    try await run(options)
    print(String(format: "timesheet-bench done in %.1f s", seconds(since: started)))
} catch {
    FileHandle.standardError.write(Data("timesheet-bench: \(error)\n".utf8))
    exit(1)
}
