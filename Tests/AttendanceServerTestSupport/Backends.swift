import AttendanceRules
import AttendanceServer
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The storage backends every contract test runs against. PostgreSQL is never skipped: when a
/// private server can't be started, the tests that need it fail and say why.
public enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgresql

    public var description: String { rawValue }

    /// A fresh, empty store, and a way to open it again as a restarted server would.
    public func makeStore() async throws -> (
        repository: any ServerRepository, reopen: @Sendable () async throws -> any ServerRepository
    ) {
        switch self {
        case .sqlite:
            let path = sqliteTestDirectory.appendingPathComponent("contract-\(UUID().uuidString).sqlite").path
            return (try SQLiteRepository.open(path: path), { try SQLiteRepository.open(path: path) })
        case .postgresql:
            let url = try await ThrowawayPostgres.shared.freshDatabaseURL()
            return (try await PostgresRepository.connect(url: url), { try await PostgresRepository.connect(url: url) })
        }
    }

    public func makeRepository() async throws -> any ServerRepository { try await makeStore().repository }
}

/// One private PostgreSQL server per test process (scripts/pg-throwaway), stopped at exit; a new
/// database for every test.
public actor ThrowawayPostgres {
    public static let shared = ThrowawayPostgres()
    /// The one start of the server: every caller awaits it, the first one starts it.
    private var server: Task<String, any Error>?

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/pg-throwaway").path

    public func freshDatabaseURL() async throws -> String {
        let base = try await baseURL()
        let name = "contract_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        // Off the cooperative pool: CREATE DATABASE copies a template with fsync on, and a blocked
        // pool thread (there are as many as cores) stalls every other test meanwhile.
        try await Self.offThePool {
            try Self.run("/usr/bin/env", ["psql", base, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE DATABASE \(name)"])
        }
        guard var components = URLComponents(string: base) else { throw ThrowawayError(message: "not a URL: \(base)") }
        components.path = "/" + name
        components.queryItems = [URLQueryItem(name: "sslmode", value: "disable")]
        return components.string ?? base
    }

    /// A primary of its own (not this process's shared server: a base backup of that one would copy
    /// every test's database while they run) and a hot standby streaming from it
    /// (`pg-throwaway standby`): the database's URL on each, and their directories for `stop`.
    public static func primaryWithStandby() async throws -> (
        primary: String, standby: String, directories: [String]
    ) {
        try await offThePool {
            let started = try run(script, ["start"]).trimmingCharacters(in: .whitespacesAndNewlines)
                .split(separator: " ")
            guard started.count == 2 else { throw ThrowawayError(message: "pg-throwaway printed '\(started)'") }
            let copy: [Substring]
            do {
                copy = try run(script, ["standby", String(started[1])])
                    .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
            } catch {
                _ = try? run(script, ["stop", String(started[1])])
                throw error
            }
            guard copy.count == 2 else { throw ThrowawayError(message: "pg-throwaway printed '\(copy)'") }
            return (
                started[0] + "?sslmode=disable", copy[0] + "?sslmode=disable", [String(copy[1]), String(started[1])]
            )
        }
    }

    /// Stops a server made by `primaryWithStandby` and removes its files.
    public static func stop(_ directory: String) async throws {
        try await offThePool { try stopNow(directory) }
    }

    /// The same, blocking (a `defer`'s clean-up).
    public static func stopNow(_ directory: String) throws { _ = try run(script, ["stop", directory]) }

    /// Off the cooperative pool too: initdb and the server's start take seconds. A failed start is
    /// kept, like a successful one: every test that needs the server fails with its reason.
    private func baseURL() async throws -> String {
        if let server { return try await server.value }
        let start = Task { try await Self.offThePool { try Self.start() } }
        server = start
        return try await start.value
    }

    private static func start() throws -> String {
        let output = try run(script, ["start"])
        let parts = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 2 else { throw ThrowawayError(message: "pg-throwaway printed '\(output)'") }
        throwawayDirectory = String(parts[1])
        atexit { stopThrowawayPostgres() }
        return String(parts[0])
    }

    /// Runs a blocking call (a child process and its wait) on a Dispatch thread, not on one of
    /// Swift concurrency's few cooperative threads.
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    struct ThrowawayError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let run = try ChildProcess.run(URL(fileURLWithPath: executable), arguments)
        guard run.status == 0 else {
            throw ThrowawayError(
                message: "\(executable) \(arguments.joined(separator: " ")) failed (\(run.status)): \(run.stderr)")
        }
        return run.stdout
    }
}

// Read by the atexit handler (a C function pointer can't capture): written once, before the
// handler is registered, by the actor above.
nonisolated(unsafe) private var throwawayDirectory: String?

/// The SQLite files of one test process, in one directory removed when the process exits.
private let sqliteTestDirectory: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "attendance-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    sqliteTestDirectoryPath = directory.path
    atexit { if let path = sqliteTestDirectoryPath { try? FileManager.default.removeItem(atPath: path) } }
    return directory
}()

nonisolated(unsafe) private var sqliteTestDirectoryPath: String?

private func stopThrowawayPostgres() {
    guard let directory = throwawayDirectory else { return }
    _ = try? ThrowawayPostgres.run(ThrowawayPostgres.script, ["stop", directory])
}

/// Writes without an idempotency key of the test's own: each call answers under a fresh key in a
/// scope of its own, so a test can record sessions directly through the one-transaction path.
extension AttendanceRepository {
    public func checkIn(_ command: CheckInCommand, now: Date) async throws -> CheckInOutcome {
        let found = FoundBox<CheckInOutcome>()
        _ = try await checkIn(command, now: now, answering: found.slot())
        return try found.value()
    }

    public func apply(_ command: SessionEventCommand, now: Date) async throws -> SessionEventOutcome {
        let found = FoundBox<SessionEventOutcome>()
        _ = try await apply(command, now: now, answering: found.slot())
        return try found.value()
    }
}

/// Keeps what a write found, for the helpers above.
final class FoundBox<Found: Sendable>: Sendable {
    private let stored = Mutex<Found?>(nil)

    func slot() -> AnswerSlot<Found> {
        AnswerSlot(scope: "test-direct", key: UUID().uuidString, requestHash: "direct") { found in
            self.stored.withLock { $0 = found }
            return StoredReply(status: 200, contentType: "application/json", body: Data())
        }
    }

    func value() throws -> Found {
        guard let found = stored.withLock({ $0 }) else {
            throw DomainError(.notFound, "Nothing found", "the write found nothing (its key was used before)")
        }
        return found
    }
}
