import ArgumentParser
import AttendanceHTTP
import AttendanceServer
import Foundation
import Logging

/// `attendance ledger verify|rebuild`: the operator's checks on the append-only ledger
/// (docs/SERVER.md, "The ledger").
struct Ledger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the ledger's hash chain, or rebuild every session from the ledger.",
        subcommands: [Verify.self, Rebuild.self]
    )

    typealias Options = DatabaseOptions

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute every row's hash and every link of the chain; report the first break.",
            discussion: """
                Exit status 0 when the chain is intact, 1 with the first broken link otherwise. Rows committed \
                but not sealed yet (the server seals every second) are checked against their own hash and \
                counted; --seal seals them first (safe beside a running server).
                """
        )

        @OptionGroup var options: Options
        @Flag(help: "Seal what is committed before verifying.")
        var seal = false

        func run() async throws {
            let repository = try await options.open()
            defer { repository.shutdown() }
            let service = LedgerService(repository: repository)
            if seal { try await service.sealAll(now: ServerEnvironment.live.now()) }
            let result = try await service.verify()
            print("sealed rows: \(result.sealed); not sealed yet: \(result.unsealed)")
            guard let broken = result.firstBreak else {
                print("the chain is intact")
                return
            }
            let place =
                broken.sequence.map { "seal \($0), row \(broken.eventId)" } ?? "row \(broken.eventId) (not sealed)"
            throw CommandFailure("the chain is broken at \(place): \(broken.reason)")
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Derive every session from the ledger and replace the sessions table with it.",
            discussion: """
                Prints how many rows were read, the sessions derived, and the sessions the table held \
                differently (their keys). With --check nothing is written, and the exit status is 1 when \
                anything differs. Stop the servers first: a rebuild replaces the table in one transaction.
                """
        )

        @OptionGroup var options: Options
        @Flag(help: "Compare only; write nothing.")
        var check = false

        func run() async throws {
            let repository = try await options.open()
            defer { repository.shutdown() }
            let started = ContinuousClock.now
            let result = try await LedgerService(repository: repository).rebuild(checkOnly: check)
            let seconds = (ContinuousClock.now - started).components
            let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
            print("ledger rows: \(result.rows); sessions: \(result.sessions); pending events: \(result.pending)")
            print("sessions that differed from the table: \(result.differing.count)")
            for key in result.differing.prefix(20) { print("  \(key)") }
            print(String(format: "%@ in %.2f s", result.replaced ? "rebuilt" : "checked", elapsed))
            if check, !result.differing.isEmpty {
                throw CommandFailure("\(result.differing.count) sessions differ from what the ledger derives")
            }
        }
    }
}
