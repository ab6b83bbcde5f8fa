// What the benchmark writers (bench/ledger, bench/timesheets) share: their command-line parsing,
// their error, their clock, and the PostgreSQL client they write through.
import Foundation
import Logging
import PostgresNIO

/// A benchmark's refusal: printed, and the process exits 2.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// `--name value` arguments, read in order; every refusal names the flag and repeats the usage.
public struct BenchArguments {
    private var rest: ArraySlice<String>
    public let usage: String

    public init(_ arguments: [String], usage: String) {
        rest = arguments[...]
        self.usage = usage
    }

    public mutating func next() -> String? { rest.popFirst() }

    public mutating func value(_ name: String) throws -> String {
        guard let next = rest.popFirst() else { throw BenchError("\(name) needs a value\n\(usage)") }
        return next
    }

    /// A positive integer (`1_000` allowed).
    public mutating func number(_ name: String) throws -> Int {
        let text = try value(name)
        guard let parsed = Int(text.replacingOccurrences(of: "_", with: "")), parsed > 0 else {
            throw BenchError("\(name) is '\(text)'; expected a positive integer")
        }
        return parsed
    }

    public func unknown(_ argument: String) -> BenchError { BenchError("unknown argument '\(argument)'\n\(usage)") }
}

public func isPostgresURL(_ database: String) -> Bool {
    database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
}

public func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// A PostgreSQL client for a `postgres://user@host:port/database?sslmode=disable` URL, running
/// until this is released.
public final class BenchPostgres: Sendable {
    public let client: PostgresClient
    public let logger: Logger
    private let runner: Task<Void, Never>

    public init(url: String, logger: Logger) throws {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw BenchError("'\(url)' is not a postgres:// URL")
        }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        guard mode == "disable" else { throw BenchError("the bench connects without TLS: add ?sslmode=disable") }
        let configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password,
            database: components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/")), tls: .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    deinit { runner.cancel() }

    /// The number of rows of `table` (a name of ours, never input).
    public func count(_ table: String) async throws -> Int {
        for try await count in try await client.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"),
                                                     logger: logger).decode(Int64.self) { return Int(count) }
        return 0
    }

    /// `($first, $first+1, …)` for one row of `count` values.
    public static func placeholders(_ first: Int, _ count: Int) -> String {
        "(" + (first..<first + count).map { "$\($0)" }.joined(separator: ", ") + ")"
    }
}
