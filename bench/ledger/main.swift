// The ledger benchmark's writer (not a test): fills a new database with N ledger rows that look
// like a fleet's (one site, E employees; per session a check-in, four heartbeats and a check-out,
// a few check-ins received after their first heartbeat), so that `attendance ledger rebuild` and
// `attendance ledger verify --seal` can be timed on it. bench/ledger/run drives it on both backends.
//
//   ledger-bench --database PATH_OR_URL --events N [--employees 1000] [--batch ROWS] [--seed 42]
//
// The site and the employees are created through AdminService (their audit rows are ledger rows
// too, counted in N). The device rows are `LedgerEvent`s built exactly as
// `LedgerEvent.checkIn`/`sessionEvent` build them (same payload fields, same actor; the hash is
// computed by `LedgerEvent.init`), then written straight to the table in large transactions:
// through the repository's `appendLedger` a million rows would be a million commits (SQLite runs
// `synchronous = FULL`). SQLite: a GRDB DatabaseQueue on the migrated file, table `ledger_events`.
// PostgreSQL: multi-row INSERTs into `ledger_events`, each id queued in `ledger_unsealed` as
// `PostgresRepository.append` does. The database must be new (no ledger rows).
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
    var events = 0
    var employees = 1_000
    var batch: Int?
    var seed: UInt64 = 42
    /// Times this many proofs of each kind instead of writing (`Proofs.swift`).
    var proofs = 0

    static let usage =
        "usage: ledger-bench --database PATH_OR_URL (--events N [--employees 1000] [--batch ROWS] | --proofs N)"
        + " [--seed 42]"

    init(_ arguments: [String]) throws {
        var rest = BenchArguments(arguments, usage: Self.usage)
        while let argument = rest.next() {
            switch argument {
            case "--database": database = try rest.value(argument)
            case "--events": events = try rest.number(argument)
            case "--employees": employees = try rest.number(argument)
            case "--batch": batch = try rest.number(argument)
            case "--seed": seed = UInt64(try rest.number(argument))
            case "--proofs": proofs = try rest.number(argument)
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: throw rest.unknown(argument)
            }
        }
        guard !database.isEmpty, events > 0 || proofs > 0 else { throw BenchError(Self.usage) }
        guard proofs > 0 || events > employees + 1 else {
            throw BenchError("--events \(events) must exceed the \(employees + 1) audit rows of the site and employees")
        }
    }

    var isPostgres: Bool { isPostgresURL(database) }
}

// MARK: - Deterministic randomness

/// SplitMix64: the same seed gives the same ledger on both backends.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
    mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
}

/// A time to the millisecond, as devices send them.
func millis(_ seconds: Double) -> Date { Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000) }

// MARK: - The fleet's rows

/// One working day of the fleet at a time: every employee checks in once (07:00–09:00 UTC), sends
/// a heartbeat about every two hours, and checks out after eight and a half to nine and a half
/// hours. Rows are in the order the server received them (device time + upload delay). 0.5 % of
/// check-ins are received after their session's first heartbeat (the heartbeat waits as pending,
/// then is reconciled); 3 % of sessions are manual.
struct Fleet {
    let site: SiteRecord
    let employees: [UserID]
    var rng: SplitMix64
    private(set) var day = 0
    private static let firstDay = 1_736_121_600.0  // 2025-01-06T00:00:00Z, a Monday

    init(site: SiteRecord, employees: [UserID], seed: UInt64) {
        self.site = site
        self.employees = employees
        rng = SplitMix64(state: seed)
    }

    static func device(of user: UserID) -> DeviceID { DeviceID("dev-" + user.rawValue) }

    /// The next day's rows, in receive order.
    mutating func nextDay() -> [LedgerEvent] {
        let base = Self.firstDay + Double(day) * 86_400
        day += 1
        var rows: [LedgerEvent] = []
        rows.reserveCapacity(employees.count * 6)
        for user in employees { rows.append(contentsOf: session(of: user, base: base)) }
        // Stable: equal receive times keep the session's own order.
        return rows.enumerated().sorted {
            ($0.element.receivedAt, $0.offset) < ($1.element.receivedAt, $1.offset)
        }.map(\.element)
    }

    private mutating func session(of user: UserID, base: Double) -> [LedgerEvent] {
        let device = Self.device(of: user)
        let checkInAt = millis(base + rng.uniform(7 * 3600, 9 * 3600))
        let manual = rng.chance(0.03)
        let key = SessionKey.derive(user: user, device: device, site: site.beacon, checkIn: checkInAt)
        func delay() -> Double { rng.uniform(0.05, 2.5) }

        var heartbeats: [(at: Date, receivedAt: Date)] = []
        for k in 1...4 {
            let at = millis(checkInAt.timeIntervalSince1970 + Double(k) * 7200 + rng.uniform(-600, 600))
            heartbeats.append((at, millis(at.timeIntervalSince1970 + delay())))
        }
        let checkOutAt = millis(checkInAt.timeIntervalSince1970 + rng.uniform(8 * 3600 + 1800, 9 * 3600 + 1800))
        let checkOutReceived = millis(checkOutAt.timeIntervalSince1970 + delay())
        var checkInReceived = millis(checkInAt.timeIntervalSince1970 + delay())
        if rng.chance(0.005) {  // the check-in stuck in the phone's outbox; its first heartbeat got through
            checkInReceived = millis(heartbeats[0].receivedAt.timeIntervalSince1970 + rng.uniform(1, 60))
        }

        // LedgerEvent.checkIn(_:now:)'s payload.
        var payload = LedgerPayload()
        payload.siteId = site.id.rawValue
        payload.deviceId = device.rawValue
        payload.source = (manual ? EventSource.manual : .automatic).rawValue
        payload.appVersion = rng.pick(["1.4.2", "1.4.2", "1.4.2", "1.5.0"])
        if manual {
            payload.checkInReason = rng.pick(["Bluetooth was off", "phone left in the car", "forgot to open the app"])
            payload.rule = "manual"
            payload.sampleCount = 0
            payload.walking = false
        } else {
            payload.rule = rng.pick(["strongMedian", "strongMedian", "early", "walking", "dwell"])
            payload.sampleCount = Int(rng.uniform(5, 40))
            payload.medianRSSI = (rng.uniform(-85, -55) * 10).rounded() / 10
            payload.stdevDB = (rng.uniform(1, 7) * 100).rounded() / 100
            payload.walking = payload.rule == "walking"
        }
        // Whole seconds, as the server derives it from the Date header.
        payload.clockSkewSeconds = rng.chance(0.02) ? rng.uniform(30, 400).rounded() : rng.uniform(-1.5, 1.5).rounded()
        var rows = [
            LedgerEvent(
                kind: .checkIn, sessionKey: key, userId: user, actor: .device(device), receivedAt: checkInReceived,
                deviceAt: checkInAt, payload: payload.encoded())
        ]
        for heartbeat in heartbeats {
            rows.append(
                sessionEvent(
                    .heartbeat, key: key, user: user, device: device, at: heartbeat.at,
                    receivedAt: heartbeat.receivedAt,
                    reason: nil, source: .automatic))
        }
        let reason =
            manual
            ? "left for the day" : rng.pick(["regionExit", "regionExit", "rangingSilence", "regionStateOutside"])
        rows.append(
            sessionEvent(
                .checkOut, key: key, user: user, device: device, at: checkOutAt, receivedAt: checkOutReceived,
                reason: reason, source: manual ? .manual : .automatic))
        return rows
    }

    /// LedgerEvent.sessionEvent(_:now:)'s row.
    private func sessionEvent(
        _ kind: LedgerKind, key: SessionKey, user: UserID, device: DeviceID, at: Date, receivedAt: Date,
        reason: String?, source: EventSource
    ) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.deviceId = device.rawValue
        payload.source = source.rawValue
        payload.reason = reason
        return LedgerEvent(
            kind: kind, sessionKey: key, userId: user, actor: .device(device), receivedAt: receivedAt, deviceAt: at,
            payload: payload.encoded())
    }
}

// MARK: - Writers

protocol LedgerWriter {
    func existingRows() async throws -> Int
    func write(_ rows: [LedgerEvent]) async throws
    func finish() async throws
}

/// SQLite: one transaction per batch through a DatabaseQueue on the repository's file.
final class SQLiteWriter: LedgerWriter {
    let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    func existingRows() async throws -> Int {
        try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ledger_events") ?? 0 }
    }

    func write(_ rows: [LedgerEvent]) async throws {
        try await queue.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO ledger_events (kind, session_key, user_id, actor, received_at, device_at, payload, personal,
                                              personal_digest, hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for event in rows {
                try statement.execute(arguments: [
                    event.kind.rawValue, event.sessionKey?.rawValue, event.userId?.rawValue, event.actor.rawValue,
                    event.receivedAt.timeIntervalSince1970, event.deviceAt?.timeIntervalSince1970,
                    String(decoding: event.payload, as: UTF8.self),
                    event.personal.map { String(decoding: $0, as: UTF8.self) }, event.personalDigest, event.hash,
                ])
            }
        }
    }

    /// Folds the WAL back into the file, so the timed commands start from a checkpointed database.
    func finish() async throws {
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}

/// PostgreSQL: one multi-row INSERT per batch, its ids queued for the sealer in the same statement.
final class PostgresWriter: LedgerWriter {
    let postgres: BenchPostgres
    var client: PostgresClient { postgres.client }
    var logger: Logger { postgres.logger }

    init(url: String, logger: Logger) throws { postgres = try BenchPostgres(url: url, logger: logger) }

    func existingRows() async throws -> Int { try await postgres.count("ledger_events") }

    func write(_ rows: [LedgerEvent]) async throws {
        var bindings = PostgresBindings(capacity: rows.count * 10)
        var values: [String] = []
        values.reserveCapacity(rows.count)
        func bind(_ value: String?) {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        func bind(_ value: Double?) {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        for event in rows {
            let first = bindings.count + 1
            values.append("(" + (first..<first + 10).map { "$\($0)" }.joined(separator: ", ") + ")")
            bind(event.kind.rawValue)
            bind(event.sessionKey?.rawValue)
            bind(event.userId?.rawValue)
            bind(event.actor.rawValue)
            bind(event.receivedAt.timeIntervalSince1970)
            bind(event.deviceAt?.timeIntervalSince1970)
            bind(String(decoding: event.payload, as: UTF8.self))
            bind(event.personal.map { String(decoding: $0, as: UTF8.self) })
            bind(event.personalDigest)
            bind(event.hash)
        }
        let sql = """
            WITH row AS (
                INSERT INTO ledger_events (kind, session_key, user_id, actor, received_at, device_at, payload, personal,
                                           personal_digest, hash)
                VALUES \(values.joined(separator: ", "))
                RETURNING id)
            INSERT INTO ledger_unsealed (event_id) SELECT id FROM row
            """
        try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// Statistics as autovacuum would have left them on a database this size.
    func finish() async throws {
        try await client.query("VACUUM ANALYZE ledger_events", logger: logger)
        try await client.query("VACUUM ANALYZE ledger_unsealed", logger: logger)
    }
}

// MARK: - Main

/// The site and the employees, through the server's own admin operations (audit rows included).
func createDirectory(_ options: Options, logger: Logger) async throws -> (SiteRecord, [UserID]) {
    let repository: any ServerRepository =
        options.isPostgres
        ? try await PostgresRepository.connect(url: options.database, logger: logger)
        : try SQLiteRepository.open(path: options.database)
    defer { repository.shutdown() }
    guard try await repository.ledgerEvents(after: 0, limit: 1).isEmpty else {
        throw BenchError("\(options.database) already holds ledger rows; the bench needs a new database")
    }
    let admin = AdminService(repository: repository, environment: .live)
    let site = try await admin.createSite(
        AdminService.SiteInput(
            name: "hq", timeZone: "Europe/Berlin", beaconUUID: SiteBeacon.defaultUUID.uuidString, major: 1))
    var employees: [UserID] = []
    for number in 1...options.employees {
        let label = String(format: "%05d", number)
        let employee = try await admin.createEmployee(
            name: "Employee \(label)", externalId: "E\(label)", email: "employee\(label)@example.com")
        employees.append(employee.id)
    }
    return (site, employees)
}

func run(_ options: Options) async throws {
    var logger = Logger(label: "ledger-bench")
    logger.logLevel = .warning
    let backend = options.isPostgres ? "postgresql" : "sqlite"
    let directoryStart = ContinuousClock.now
    let (site, employees) = try await createDirectory(options, logger: logger)
    let auditRows = 1 + employees.count
    print(
        "\(backend): site \(site.id) and \(employees.count) employees created (\(auditRows) audit rows) "
            + String(format: "in %.2f s", seconds(since: directoryStart)))

    let writer: any LedgerWriter =
        options.isPostgres
        ? try PostgresWriter(url: options.database, logger: logger) : try SQLiteWriter(path: options.database)
    let batchSize = options.batch ?? (options.isPostgres ? 5_000 : 50_000)
    guard !options.isPostgres || batchSize * 10 <= 65_535 else {
        throw BenchError("--batch \(batchSize): PostgreSQL takes at most 6553 rows of 10 columns in one statement")
    }
    var fleet = Fleet(site: site, employees: employees, seed: options.seed)
    let deviceRows = options.events - auditRows
    var written = 0
    var kinds: [LedgerKind: Int] = [:]
    var sessionKeys = Set<SessionKey>()
    var generateSeconds = 0.0
    var writeSeconds = 0.0
    var batch: [LedgerEvent] = []
    batch.reserveCapacity(batchSize)
    var day: [LedgerEvent] = []
    var dayIndex = 0
    var lastReport = ContinuousClock.now
    while written < deviceRows {
        if dayIndex == day.count {
            let started = ContinuousClock.now
            day = fleet.nextDay()
            generateSeconds += seconds(since: started)
            dayIndex = 0
        }
        let event = day[dayIndex]
        dayIndex += 1
        batch.append(event)
        kinds[event.kind, default: 0] += 1
        if event.kind == .checkIn, let key = event.sessionKey { sessionKeys.insert(key) }
        written += 1
        if batch.count == batchSize || written == deviceRows {
            let started = ContinuousClock.now
            try await writer.write(batch)
            writeSeconds += seconds(since: started)
            batch.removeAll(keepingCapacity: true)
            if ContinuousClock.now - lastReport > .seconds(15) {
                print("  \(written) of \(deviceRows) device rows written")
                lastReport = ContinuousClock.now
            }
        }
    }
    let finishStart = ContinuousClock.now
    try await writer.finish()
    let finishSeconds = seconds(since: finishStart)
    let total = try await writer.existingRows()
    print(
        "\(backend): \(written) device rows written in batches of \(batchSize) "
            + String(
                format: "(rows built and hashed %.1f s, inserts %.1f s, %@ %.1f s)", generateSeconds, writeSeconds,
                options.isPostgres ? "VACUUM ANALYZE" : "WAL checkpoint", finishSeconds))
    print(
        "  by kind: "
            + kinds.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", "))
    print("ledger rows: \(total); sessions (check-ins written): \(sessionKeys.count) over \(fleet.day) days")
    guard total == options.events else { throw BenchError("expected \(options.events) ledger rows, found \(total)") }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let started = ContinuousClock.now
    if options.proofs > 0 {
        try await measureProofs(options, logger: Logger(label: "ledger-bench"))
    } else {
        try await run(options)
    }
    print(String(format: "ledger-bench done in %.1f s", seconds(since: started)))
} catch {
    FileHandle.standardError.write(Data("ledger-bench: \(error)\n".utf8))
    exit(1)
}
