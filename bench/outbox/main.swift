// Outbox benchmark (not a test): durable enqueue rate and latency through `DeviceStore`, beside
// a raw-SQLite baseline in the same run: the same pragmas (WAL, synchronous = FULL), the same
// table and the same row, through SQLite's C API with no wrapper. Run in release:
//
//     swift run -c release outbox-bench [--events N] [--rounds R] [--directory DIR] [--json]
//
// Target (issue #3): the wrapper's rate ≥ 0.8 × the raw rate.
import AttendanceModels
import AttendanceSync
import Foundation
import GRDBSQLite

struct Options {
    var events = 2_000
    var rounds = 6
    var directory = FileManager.default.temporaryDirectory.path
    var json = false

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--events": events = positive(iterator.next(), "--events")
            case "--rounds": rounds = positive(iterator.next(), "--rounds")
            case "--directory":
                guard let path = iterator.next() else { fail("--directory needs a path") }
                directory = path
            case "--json": json = true
            default: fail("unknown argument '\(argument)'; expected --events N, --rounds R, --directory DIR or --json")
            }
        }
    }
}

func positive(_ value: String?, _ name: String) -> Int {
    guard let value, let number = Int(value), number > 0 else { fail("\(name) needs a positive integer") }
    return number
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("outbox-bench: \(message)\n".utf8))
    exit(2)
}

func event(_ n: Int) -> AttendanceEvent {
    AttendanceEvent(kind: .heartbeat, userID: "bench-user", deviceID: "bench-device", site: SiteBeacon(major: 1),
                    sessionKey: SessionKey("s-bench-\(n / 40)"), timestamp: Date(timeIntervalSince1970: 1_795_338_000 + Double(n) * 900),
                    source: .automatic)
}

struct Result {
    var latencies: [Double] = []   // seconds
    var total: Double = 0
    var rate: Double { Double(latencies.count) / total }
    func percentile(_ p: Double) -> Double {
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}

func timed(_ count: Int, _ body: (Int) throws -> Void) rethrows -> Result {
    var result = Result()
    result.latencies.reserveCapacity(count)
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count {
        let before = clock.now
        try body(index)
        let elapsed = before.duration(to: clock.now)
        result.latencies.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    let total = start.duration(to: clock.now)
    result.total = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    return result
}

func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// Through the wrapper: one `enqueue` (one transaction) per event, as the runtime does.
func wrapperRun(_ options: Options, offset: Int) throws -> Result {
    let path = options.directory + "/outbox-bench-wrapper.sqlite"
    removeDatabase(path)
    defer { removeDatabase(path) }
    let store = try DeviceStore.open(path: path)
    let settings = try store.durabilitySettings()
    wrapperSettings = "journal_mode=\(settings.journalMode) synchronous=\(settings.synchronous)"
    let events = (0..<options.events).map { event(offset + $0) }
    let now = Date()
    return try timed(options.events) { index in try store.enqueue([events[index]], at: now) }
}

/// The same row through SQLite's C API: the payload is the same bytes the wrapper stores.
func rawRun(_ options: Options, offset: Int) throws -> Result {
    let path = options.directory + "/outbox-bench-raw.sqlite"
    removeDatabase(path)
    defer { removeDatabase(path) }
    var db: OpaquePointer?
    // NOMUTEX, as GRDB opens its connections: one thread uses this connection.
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else { fail("sqlite3_open failed") }
    defer { sqlite3_close(db) }
    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }
    exec("PRAGMA journal_mode = WAL")
    exec("PRAGMA synchronous = FULL")
    exec("PRAGMA foreign_keys = ON")
    var check: OpaquePointer?
    sqlite3_prepare_v2(db, "PRAGMA synchronous", -1, &check, nil)
    sqlite3_step(check)
    rawSettings = "journal_mode=wal synchronous=\(sqlite3_column_int(check, 0))"
    sqlite3_finalize(check)
    exec("""
        CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, idempotencyKey TEXT NOT NULL UNIQUE, sessionKey TEXT NOT NULL,
            kind TEXT NOT NULL, eventTimestamp REAL NOT NULL, payload BLOB NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'inFlight', 'delivered', 'dead')), attempts INTEGER NOT NULL DEFAULT 0,
            nextAttemptAt REAL NOT NULL, lastError TEXT, lastErrorWasTransport INTEGER NOT NULL DEFAULT 0, enqueuedAt REAL NOT NULL,
            deliveredAt REAL, deadAt REAL);
        CREATE INDEX outbox_by_state ON outbox (state, id);
        CREATE INDEX outbox_by_session ON outbox (sessionKey, id);
        """)
    var statement: OpaquePointer?
    let sql = """
        INSERT INTO outbox (idempotencyKey, sessionKey, kind, eventTimestamp, payload, state, nextAttemptAt, enqueuedAt)
        VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT(idempotencyKey) DO NOTHING
        """
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { fail("prepare failed") }
    defer { sqlite3_finalize(statement) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let rows = try (0..<options.events).map { index -> (key: String, session: String, kind: String, ts: Double, payload: [UInt8]) in
        let event = event(offset + index)
        return (event.idempotencyKey, event.sessionKey.rawValue, event.kind.rawValue, event.timestamp.timeIntervalSince1970, Array(try encoder.encode(event)))
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let now = Date().timeIntervalSince1970
    return timed(options.events) { index in
        let row = rows[index]
        sqlite3_reset(statement)
        sqlite3_bind_text(statement, 1, row.key, -1, transient)
        sqlite3_bind_text(statement, 2, row.session, -1, transient)
        sqlite3_bind_text(statement, 3, row.kind, -1, transient)
        sqlite3_bind_double(statement, 4, row.ts)
        _ = row.payload.withUnsafeBytes { sqlite3_bind_blob(statement, 5, $0.baseAddress, Int32($0.count), transient) }
        sqlite3_bind_double(statement, 6, now)
        sqlite3_bind_double(statement, 7, now)
        guard sqlite3_step(statement) == SQLITE_DONE else { fail("insert failed: \(String(cString: sqlite3_errmsg(db)))") }
    }
}

nonisolated(unsafe) var wrapperSettings = ""
nonisolated(unsafe) var rawSettings = ""
let options = Options(CommandLine.arguments)
var wrapper = Result()
var raw = Result()
// Interleave the two, swapping which goes first each round, so that drift in the disk's speed
// and any warm-up falls on both alike.
for round in 0..<options.rounds {
    let offset = round * options.events
    let (r, w) = round % 2 == 0 ? (try rawRun(options, offset: offset), try wrapperRun(options, offset: offset))
                                : { let w = try! wrapperRun(options, offset: offset); return (try! rawRun(options, offset: offset), w) }()
    raw.latencies += r.latencies; raw.total += r.total
    wrapper.latencies += w.latencies; wrapper.total += w.total
}
let ratio = wrapper.rate / raw.rate
if options.json {
    let report: [String: Any] = [
        "events": options.events * options.rounds, "wrapperSettings": wrapperSettings, "rawSettings": rawSettings,
        "wrapper": ["eventsPerSecond": wrapper.rate.rounded(), "p50Ms": wrapper.percentile(0.5) * 1000, "p99Ms": wrapper.percentile(0.99) * 1000],
        "raw": ["eventsPerSecond": raw.rate.rounded(), "p50Ms": raw.percentile(0.5) * 1000, "p99Ms": raw.percentile(0.99) * 1000],
        "ratio": (ratio * 1000).rounded() / 1000,
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
} else {
    print("outbox-bench: \(options.events * options.rounds) durable enqueues each (WAL, synchronous = FULL, one transaction each), in \(options.directory)")
    print("  settings: DeviceStore \(wrapperSettings); raw \(rawSettings)")
    print("                    events/s      p50 ms      p99 ms")
    for (name, result) in [("DeviceStore", wrapper), ("raw SQLite C API", raw)] {
        print(String(format: "  %-16@  %10.0f  %10.3f  %10.3f", name as NSString, result.rate, result.percentile(0.5) * 1000, result.percentile(0.99) * 1000))
    }
    print(String(format: "  ratio (wrapper / raw): %.3f   (target ≥ 0.8)", ratio))
}
