import AttendanceModels
import AttendanceRules
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL store, for several stateless server instances sharing one database.
///
/// Same protocol and semantics as `SQLiteRepository`; times are epoch seconds (`double precision`)
/// as there. PostgreSQL runs transactions concurrently (READ COMMITTED), so every write to a
/// session takes a per-session advisory lock first: a check-out stored as pending can't slip past
/// a concurrent check-in's reconciliation.
public final class PostgresRepository: AttendanceRepository, AuthRepository, AdminRepository, AccountRepository,
    TimesheetRepository, PayPeriodRepository, LedgerRepository, LedgerTreeRepository, RequestRepository,
    SQLStorage, Sendable
{
    public let backendName = "postgresql"
    package let client: PostgresClient
    package let logger: Logger
    /// The storage port the shared storage code runs on (`SQLStorage`).
    public let database: any SQLDatabase
    /// The pool's run loop when this repository runs it itself (`connect`); nil when a
    /// ServiceLifecycle group runs `pool` (`attendance serve`, through `unstarted`).
    private let runner: Task<Void, Never>?

    private init(client: PostgresClient, logger: Logger, runsPool: Bool) {
        self.client = client
        self.logger = logger
        self.database = PostgresDatabase(client: client, logger: logger)
        runner = runsPool ? Task { await client.run() } : nil
    }

    private convenience init(url: String, logger: Logger, runsPool: Bool) throws {
        self.init(
            client: PostgresClient(configuration: try Self.configuration(url: url), backgroundLogger: logger),
            logger: logger, runsPool: runsPool)
    }

    /// Connects to `url` (`postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`)
    /// and runs the migrations. The pool runs in a task of the repository's own until `shutdown`
    /// (tests, the CLI's one-shot commands).
    public static func connect(url: String, logger: Logger = Logger(label: "attendance.postgres")) async throws
        -> PostgresRepository
    {
        try await connect(url: url, logger: logger, migratingThrough: nil)
    }

    /// The repository with its pool not yet running and nothing migrated: the caller runs `pool`
    /// as a ServiceLifecycle service (PostgresClient is one) and calls `migrate()` before using it.
    /// `attendance serve` does, so that its ServiceGroup starts and stops the pool with the server.
    public static func unstarted(url: String, logger: Logger = Logger(label: "attendance.postgres")) throws
        -> PostgresRepository
    {
        try PostgresRepository(url: url, logger: logger, runsPool: false)
    }

    /// The connection pool, a ServiceLifecycle service, for a repository made with `unstarted`.
    public var pool: PostgresClient { client }

    /// `migratingThrough`: stop after that migration (the upgrade tests build an older schema).
    package static func connect(
        url: String, logger: Logger = Logger(label: "attendance.postgres"), migratingThrough last: String?
    ) async throws -> PostgresRepository {
        let repository = try PostgresRepository(url: url, logger: logger, runsPool: true)
        do {
            try await repository.migrate(through: last)
        } catch {
            repository.shutdown()
            throw error
        }
        return repository
    }

    /// Runs the migrations not yet applied (`MigrationRunner`), in one transaction.
    public func migrate() async throws { try await migrate(through: nil) }

    package func migrate(through last: String?) async throws {
        try await database.write { tx in try await MigrationRunner.migrate(tx, through: last) }
    }

    /// Closes the connection pool when this repository runs it (a service's pool stops with its group).
    public func shutdown() { runner?.cancel() }

    public func ping() async throws {
        _ = try await client.query("SELECT 1", logger: logger).collect()
    }

    package static func configuration(url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty
        else {
            throw DomainError.field(
                "--database", url, expected: "a file path, or a URL like postgres://user:password@host:5432/database")
        }
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard !database.isEmpty else {
            throw DomainError.field("--database", url, expected: "a database name after the host, e.g. /attendance")
        }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw DomainError.field("sslmode", mode, expected: "disable, prefer or require")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database, tls: tls)
        configuration.options.maximumConnections = 32
        return configuration
    }
}
