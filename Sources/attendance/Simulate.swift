import ArgumentParser
import AttendanceEngine
import AttendanceSimulation
import Foundation

struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Run the field test: simulated employees on the real engine, outbox and server, scored against the truth.",
        discussion: """
            A deterministic world (radio, people, iOS, network, faults; docs/SIMULATOR.md) drives each phone. By default \
            the real server runs in this process on a temporary SQLite file and the phones talk HTTP to it over loopback; \
            --server targets a running server (the admin token comes from ATTENDANCE_ADMIN_TOKEN). The same seed gives \
            the same report, apart from wallSeconds and employeeDaysPerSecond.
            """
    )

    @Option(help: "Simulated employees (one phone each).")
    var employees = 200

    @Option(help: "Simulated days.")
    var days = 5

    @Option(help: "The seed of everything random.")
    var seed: UInt64 = 1

    @Option(help: "default, naive, altbeacon, hindsight (offline, the bound) or all.")
    var policy = "default"

    @Option(help: "Per device-day, the probability of a crash at a random instant (also in mid-write and mid-upload).")
    var crashRate = 0.0

    @Option(help: "Give every device one network outage of this many hours.")
    var offlineHours = 0.0

    @Option(help: "A world file (JSON; every field optional, see docs/SIMULATOR.md).")
    var world: String?

    @Option(help: "A running server's base URL instead of the in-process one.")
    var server: String?

    @Option(
        help:
            "How the phones reach the in-process server: http (loopback sockets, the full path) or inprocess (its router, no sockets)."
    )
    var transport = "http"

    @Option(
        help:
            "Our policy's engine settings: a JSON engine configuration, missing keys at their defaults (docs/ENGINE.md)."
    )
    var engineConfig: String?

    @Option(help: "Phones simulated at once.")
    var parallelism = 4

    @Flag(help: "Print the JSON report instead of the table.")
    var json = false

    @Option(help: "Also write the JSON report to this file.")
    var out: String?

    @Option(help: "Write every true presence and every recorded session (per policy) to this JSON file.")
    var details: String?

    @Option(
        help:
            "Write one employee's phone log (our policy: every audit record, then the ranging trace in the replay format) as EMPLOYEE=FILE, e.g. emp-0031=/tmp/emp-0031.log."
    )
    var phoneLog: String?

    func run() async throws {
        var options = Simulation.Options()
        options.employees = employees
        options.days = days
        options.seed = seed
        options.faults = FaultOptions(crashRate: crashRate, offlineHours: offlineHours)
        options.parallelism = parallelism
        guard let chosen = Simulation.Transport(rawValue: transport) else {
            throw CommandFailure("'--transport' is '\(transport)'; expected http or inprocess")
        }
        options.transport = chosen
        switch policy {
        case "all": options.policies = Simulation.Policy.allCases
        default:
            guard let one = Simulation.Policy(rawValue: policy) else {
                throw CommandFailure("'--policy' is '\(policy)'; expected default, naive, altbeacon, hindsight or all")
            }
            options.policies = [one]
        }
        if let phoneLog {
            let parts = phoneLog.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw CommandFailure(
                    "'--phone-log' is '\(phoneLog)'; expected EMPLOYEE=FILE, e.g. emp-0031=/tmp/emp-0031.log")
            }
            options.phoneLog = .init(employee: parts[0], path: parts[1])
        }
        if let world { options.world = try Self.loadWorld(world) }
        if let engineConfig {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: engineConfig)) } catch {
                throw CommandFailure("can't read '--engine-config' \(engineConfig): \(error.localizedDescription)")
            }
            do { options.engine = try Configuration.decode(json: data) } catch {
                throw CommandFailure("'--engine-config' \(engineConfig): \(error)")
            }
        }
        if let server {
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw CommandFailure("'--server' is '\(server)'; expected an http:// or https:// URL")
            }
            guard let token = ProcessInfo.processInfo.environment["ATTENDANCE_ADMIN_TOKEN"], !token.isEmpty else {
                throw CommandFailure(
                    "'--server' needs the server's admin token in ATTENDANCE_ADMIN_TOKEN (it creates sites, employees and devices)"
                )
            }
            options.server = .remote(url, adminToken: token)
        }
        let errors = options.validationErrors()
        guard errors.isEmpty else { throw CommandFailure(errors.joined(separator: "\n")) }

        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        let report: SimulationReport
        do {
            let interruption = Interruption("simulate", consequence: "no report was written")
            report = try await Simulation.run(options, environment: .live) { done, total in
                bar.update(done: done, total: total)
            }
            withExtendedLifetime(interruption) {}
        } catch let failure as Simulation.Failure {
            bar.finish()
            throw CommandFailure(failure.description)
        }
        bar.finish()
        let data = try report.json()
        if let out {
            do { try data.write(to: URL(fileURLWithPath: out)) } catch {
                throw CommandFailure("can't write the report to '--out' \(out): \(error.localizedDescription)")
            }
        }
        if let details {
            do { try report.details.json().write(to: URL(fileURLWithPath: details)) } catch {
                throw CommandFailure("can't write the details to '--details' \(details): \(error.localizedDescription)")
            }
        }
        if json {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            print(ReportTable.render(report), terminator: "")
        }
    }

    static func loadWorld(_ path: String) throws -> WorldSpec {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CommandFailure("can't read the world file '\(path)': \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(WorldSpec.self, from: data)
        } catch let error as DecodingError {
            throw CommandFailure("world file '\(path)': \(WorldSpec.describe(error))")
        } catch {
            throw CommandFailure("world file '\(path)' is not JSON: \(error.localizedDescription)")
        }
    }
}

/// A progress bar with an ETA on standard error, when it is a terminal.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let started = Date()

    init(enabled: Bool) { self.enabled = enabled }

    func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let fraction = Double(done) / Double(total)
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = Date().timeIntervalSince(started)
        let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
        let line =
            "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            + "\(done)/\(total) phones, " + String(format: "%.0f s elapsed, ETA %.0f s ", elapsed, eta)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
