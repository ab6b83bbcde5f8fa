import ArgumentParser
import AttendanceHTTP
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Logging

/// `--database`, for the commands that work on a server's database beside (or without) a running
/// server: `ledger`, `timesheets`.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "A SQLite file, or a postgres://user:password@host:5432/database URL.")
    var database = "./attendance.sqlite"

    func open() async throws -> any ServerRepository {
        guard database.hasPrefix("postgres") || FileManager.default.fileExists(atPath: database) else {
            throw CommandFailure(
                "'--database' is '\(database)'; expected an existing SQLite file or a postgres:// URL")
        }
        var logger = Logger(label: "attendance.command")
        logger.logLevel = .warning
        do {
            return try await ServerDatabase.open(database, logger: logger)
        } catch let problem as DomainError {
            throw CommandFailure(problem.detail)
        }
    }
}
