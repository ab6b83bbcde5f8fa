import ArgumentParser
import AttendanceHTTP
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation

/// `attendance backup`: a consistent copy of a database taken while servers write to it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a database to a new file while the servers keep serving.",
        discussion: """
            SQLite: SQLite's online backup, a file that is itself a database. PostgreSQL: pg_dump's custom \
            format (pg_dump from --postgres-bin or the PATH, of the server's major version or newer). The copy \
            holds every transaction committed before it began, so every check-in answered before then. \
            The ledger's key file is not in the database: back it up apart (docs/OPERATIONS.md).
            """
    )

    @Option(help: "The database to copy: a SQLite file, or a postgres://user:password@host:5432/database URL.")
    var database = "./attendance.sqlite"

    @Option(help: "The backup file to create (never overwritten).")
    var to: String

    @Option(help: "The directory holding pg_dump (PostgreSQL only; default: the PATH).")
    var postgresBin: String?

    @Option(
        help: ArgumentHelp(
            "After a backup, write its time, duration and size to this file in Prometheus' text format.",
            discussion: "For node_exporter's textfile collector: the BackupStale alert reads it (docs/OPERATIONS.md)."))
    var metricsFile: String?

    func run() async throws {
        let started = Date()
        let bytes = try copy(started: started)
        if let metricsFile { try Self.writeMetrics(to: metricsFile, started: started, bytes: bytes) }
    }

    /// Makes the backup and prints what it holds; its size.
    private func copy(started: Date) throws -> Int64 {
        guard !FileManager.default.fileExists(atPath: to) else {
            throw CommandFailure("--to '\(to)' exists; a backup is written to a new file and never replaces one")
        }
        if ServerDatabase.isPostgres(database) {
            let partial = to + ".partial"
            try? FileManager.default.removeItem(atPath: partial)
            do {
                try PostgresTools(directory: postgresBin).run(
                    "pg_dump", ["--format=custom", "--file=\(partial)", "--dbname=\(database)"])
                try FileManager.default.moveItem(atPath: partial, toPath: to)
            } catch {
                try? FileManager.default.removeItem(atPath: partial)
                throw error
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: to)[.size] as? NSNumber)?.int64Value ?? 0
            print("Backed up to \(to): \(bytes) bytes (pg_dump, custom format) in \(Self.seconds(since: started)).")
            return bytes
        }
        guard FileManager.default.fileExists(atPath: database) else {
            throw CommandFailure("--database '\(database)' does not exist; expected a SQLite file or a postgres:// URL")
        }
        do {
            let contents = try SQLiteBackup.copy(from: database, to: to)
            print("Backed up to \(to): \(Self.describe(contents)) in \(Self.seconds(since: started)).")
            return contents.bytes
        } catch let problem as BackupError {
            throw CommandFailure(problem.description)
        }
    }

    /// The last backup's gauges, replaced whole (written beside, then renamed: a collector never
    /// reads half a file).
    static func writeMetrics(to path: String, started: Date, bytes: Int64) throws {
        let finished = Date()
        let gauges: [(name: String, help: String, value: String)] = [
            (
                "attendance_backup_last_success_timestamp_seconds", "When the last backup finished (Unix time).",
                String(format: "%.3f", finished.timeIntervalSince1970)
            ),
            (
                "attendance_backup_duration_seconds", "How long the last backup took.",
                String(format: "%.3f", finished.timeIntervalSince(started))
            ),
            ("attendance_backup_size_bytes", "The size of the last backup's file.", String(bytes)),
        ]
        let text = gauges.map { "# HELP \($0.name) \($0.help)\n# TYPE \($0.name) gauge\n\($0.name) \($0.value)\n" }
            .joined()
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure(
                "--metrics-file '\(path)' can't be written: \(error.localizedDescription) (the backup itself is made)")
        }
    }

    static func describe(_ contents: SQLiteBackup.Contents) -> String {
        "\(contents.ledgerRows) ledger rows (the last \(contents.lastLedgerId)), \(contents.sessions) sessions, "
            + "\(contents.bytes) bytes"
    }

    static func seconds(since start: Date) -> String {
        String(format: "%.1f s", Date().timeIntervalSince(start))
    }
}

/// `attendance restore`: a backup brought back into a new database, then its ledger verified.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup back into a new database and verify its ledger.",
        discussion: """
            SQLite: --database must not exist; the backup is checked (integrity_check) and copied to it. \
            PostgreSQL: --database must be an empty database (create it first); pg_restore loads the dump in one \
            transaction. Then the schema is brought up to this version and the ledger verified as `attendance \
            ledger verify` does. With --ledger-key the rows the backup caught before they were sealed are sealed \
            and the tree grown, as the server would at start; without it the server does that when it starts. \
            Exit status 1 when the ledger does not verify.
            """
    )

    @Option(help: "The backup file (from `attendance backup`).")
    var from: String

    @Option(help: "The database to create: a new SQLite file, or the URL of an empty PostgreSQL database.")
    var database: String

    @Option(help: "The server's ledger key file: seal and grow what the backup caught unsealed, check signatures.")
    var ledgerKey: String?

    @Option(help: "The directory holding pg_restore and psql (PostgreSQL only; default: the PATH).")
    var postgresBin: String?

    func run() async throws {
        let started = Date()
        guard FileManager.default.fileExists(atPath: from) else {
            throw CommandFailure("--from '\(from)' does not exist; expected a file made by `attendance backup`")
        }
        let signer = try ledgerKey.map { path in
            do { return try LedgerKeyFile.load(path: path) } catch let problem as DomainError {
                throw CommandFailure(problem.detail)
            }
        }
        if ServerDatabase.isPostgres(database) {
            try restorePostgres()
        } else {
            do {
                let contents = try SQLiteBackup.restore(from: from, to: database)
                print("Restored \(from) to \(database): \(Backup.describe(contents)).")
            } catch let problem as BackupError {
                throw CommandFailure(problem.description)
            }
        }
        var options = DatabaseOptions()
        options.database = database
        let repository = try await options.open()
        defer { repository.shutdown() }
        let service = LedgerService(repository: repository)
        let now = ServerEnvironment.live.now()
        if let signer {
            try await service.sealAll(now: now)
            try await service.growTree(signer: signer, now: now)
        }
        // Without the key, rows the backup caught unsealed stay so until a server starts: not a fault.
        let result = try await service.verify(verifier: signer?.verifier, now: signer == nil ? nil : now)
        print("sealed rows: \(result.chain.sealed); not sealed yet: \(result.chain.unsealed)")
        for target in result.checkpoints {
            print("the rows match \(target.source) (\(target.checkpoint.size) rows)")
        }
        guard result.isIntact else { throw CommandFailure(result.problems.joined(separator: "\n")) }
        print("the chain is intact; restored in \(Backup.seconds(since: started))")
    }

    private func restorePostgres() throws {
        let head = FileHandle(forReadingAtPath: from).flatMap { try? $0.read(upToCount: 5) }
        guard head == Data("PGDMP".utf8) else {
            throw CommandFailure(
                "--from '\(from)' is not a PostgreSQL dump (pg_dump's custom format, from `attendance backup`); "
                    + "a SQLite backup restores to a SQLite file")
        }
        let tools = PostgresTools(directory: postgresBin)
        let tables = try tools.run(
            "psql",
            [
                "--no-psqlrc", "--tuples-only", "--no-align", "--dbname=\(database)", "--command",
                "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = 'public'",
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        guard tables == "0" else {
            throw CommandFailure(
                "--database '\(PostgresTools.redacted(database))' holds \(tables) tables; "
                    + "a restore needs an empty database (CREATE DATABASE a new one)")
        }
        try tools.run(
            "pg_restore", ["--exit-on-error", "--single-transaction", "--no-owner", "--dbname=\(database)", from])
        print("Restored \(from) to \(PostgresTools.redacted(database)) (pg_restore).")
    }
}

/// PostgreSQL's client programs, run with their output collected; a failure names the program,
/// its exit status and what it printed.
struct PostgresTools {
    var directory: String?

    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> String {
        let path = try locate(program)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both to their end before waiting: a program blocked on a full pipe never exits.
        let errorText = ReadInBackground(errors.fileHandleForReading)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let message = errorText.finish()
        guard process.terminationStatus == 0 else {
            throw CommandFailure(
                "\(program) failed (exit status \(process.terminationStatus)): "
                    + Self.redacted(message.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return text
    }

    private func locate(_ program: String) throws -> String {
        let directories =
            directory.map { [$0] }
            ?? (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(program).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw CommandFailure(
            directory.map { "--postgres-bin '\($0)' holds no \(program)" }
                ?? "\(program) is not on the PATH; install PostgreSQL's client programs or give --postgres-bin")
    }

    /// `text` with the password of any postgres:// URL in it replaced.
    static func redacted(_ text: String) -> String {
        text.replacingOccurrences(
            of: #"(postgres(?:ql)?://[^:/@\s]+):[^@\s]+@"#, with: "$1:***@", options: .regularExpression)
    }
}

/// A pipe read to its end on a thread of its own.
private final class ReadInBackground: @unchecked Sendable {
    // @unchecked: `data` is written by the reading thread before `done` is signalled, read after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
