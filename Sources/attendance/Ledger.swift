import ArgumentParser
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Logging

/// `attendance ledger verify|rebuild`: the operator's checks on the append-only ledger
/// (docs/SERVER.md, "The ledger").
struct Ledger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the ledger's hash chain, or rebuild every session from the ledger.",
        subcommands: [Verify.self, Rebuild.self, NewKey.self]
    )

    typealias Options = DatabaseOptions

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute every row's hash, every link of the chain and the Merkle tree; report what breaks.",
            discussion: """
                Exit status 0 when the chain is intact, 1 with the first broken link otherwise. Rows committed \
                but not sealed yet (the server seals every second) are checked against their own hash and \
                counted; --seal seals them first (safe beside a running server; with --ledger-key it also \
                grows the tree and signs a checkpoint). The tree is rebuilt from the rows and held to the \
                database's newest checkpoint and to --checkpoint, one kept from earlier (by a witness, an \
                auditor or an employee): a row changed, deleted, inserted or moved before its size fails, even \
                when every hash the database stores was recomputed. See docs/LEDGER.md.
                """
        )

        @OptionGroup var options: Options
        @Flag(help: "Seal what is committed before verifying.")
        var seal = false

        @Option(help: "A signed checkpoint kept from earlier (a file): the rows it covers must still hash to its root.")
        var checkpoint: String?

        @Option(help: "The note verifier key that signs checkpoints (as `attendance serve` prints it).")
        var verifierKey: String?

        @Option(help: "The server's ledger key file, to take the verifier key from (instead of --verifier-key).")
        var ledgerKey: String?

        func run() async throws {
            let verifier = try Self.verifier(key: verifierKey, file: ledgerKey)
            var kept: Checkpoint?
            if let checkpoint {
                guard let verifier else {
                    throw CommandFailure("--checkpoint needs --verifier-key or --ledger-key to check its signature")
                }
                kept = try Self.checkpoint(path: checkpoint, verifier: verifier)
            }
            let repository = try await options.open()
            defer { repository.shutdown() }
            let service = LedgerService(repository: repository)
            if seal {
                try await service.sealAll(now: ServerEnvironment.live.now())
                if let key = ledgerKey {
                    try await service.growTree(
                        signer: try LedgerKeyFile.load(path: key), now: ServerEnvironment.live.now())
                }
            }
            let result = try await service.verify(verifier: verifier, kept: kept, now: ServerEnvironment.live.now())
            print("sealed rows: \(result.chain.sealed); not sealed yet: \(result.chain.unsealed)")
            for target in result.checkpoints {
                print("the rows match \(target.source) (\(target.checkpoint.size) rows)")
            }
            guard result.isIntact else { throw CommandFailure(result.problems.joined(separator: "\n")) }
            print("the chain is intact")
        }

        static func verifier(key: String?, file: String?) throws -> NoteVerifier? {
            if let key {
                do { return try NoteVerifier(encoded: key) } catch {
                    throw CommandFailure("--verifier-key '\(key)' is not a note verifier key: \(error)")
                }
            }
            guard let file else { return nil }
            do { return try LedgerKeyFile.load(path: file).verifier } catch let problem as DomainError {
                throw CommandFailure(problem.detail)
            }
        }

        static func checkpoint(path: String, verifier: NoteVerifier) throws -> Checkpoint {
            let note: String
            do { note = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw CommandFailure("--checkpoint '\(path)' can't be read: \(error.localizedDescription)")
            }
            do { return try Checkpoint.open(note, verifier: verifier, origin: verifier.name) } catch {
                throw CommandFailure("--checkpoint '\(path)': \(error)")
            }
        }
    }

    struct NewKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-key",
            abstract: "Make a key that signs the ledger's checkpoints, in a new file; print its verifier key.",
            discussion: """
                The file is created readable by its owner only and never overwritten. Give it to \
                `attendance serve --ledger-key` (every server on one database the same file). For a rotation, \
                make the new key with the same --name (docs/LEDGER.md, "The key").
                """
        )

        @Option(help: "The file to create.")
        var to: String

        @Option(help: "The key's name, which is every checkpoint's origin line.")
        var name = "\(ProcessInfo.processInfo.hostName)/attendance-ledger"

        func run() throws {
            guard !FileManager.default.fileExists(atPath: to) else {
                throw CommandFailure("--to '\(to)' exists; a key file is never overwritten")
            }
            do {
                let key = try LedgerKeyFile.loadOrCreate(path: to, name: name)
                print("Ledger key created in \(to); its note verifier key: \(key.signer.verifier.encoded)")
            } catch let problem as DomainError {
                throw CommandFailure(problem.detail)
            }
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
