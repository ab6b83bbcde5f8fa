import ArgumentParser
import AttendanceConsole
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Logging
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the attendance server (HTTP API in openapi.yaml) on a SQLite file or a PostgreSQL database.",
        discussion: """
            On a database's first start an admin token is created and printed once, unless ATTENDANCE_ADMIN_TOKEN \
            is set (at least 16 characters), in which case that value is the admin token; and the console's owner \
            account is created, its password printed once. The console is at /console. SIGINT and SIGTERM finish \
            the requests in flight and exit 0. One log line per request goes to standard error. See docs/SERVER.md \
            and docs/CONSOLE.md.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "A SQLite file (created if missing), or a postgres://user:password@host:5432/database URL.")
    var database = "./attendance.sqlite"

    @Option(help: "The e-mail of the console's owner account, created on a database's first start.")
    var ownerEmail = "owner@attendance.local"

    @Option(help: "Log format on standard error: text or json.")
    var logFormat = "text"

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(help: "Refuse an event whose ts is more than this many seconds ahead of the server's clock.")
    var maxFutureSeconds: Double = IngestLimits().maxFutureSeconds

    @Option(help: "Refuse an event whose ts is more than this many seconds old (default 30 days).")
    var maxPastSeconds: Double = IngestLimits().maxPastSeconds

    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key); without it, plain HTTP.")
    var tlsCert: String?

    @Option(help: "The PEM private key of --tls-cert (unencrypted).")
    var tlsKey: String?

    @Option(
        help: """
            The file with the key that signs the ledger's checkpoints, created on first start (default: \
            attendance-ledger.key beside a SQLite file, in the working directory for PostgreSQL). Keep it \
            apart from the database's backups; servers on one database share it.
            """)
    var ledgerKey: String?

    @Option(help: "The name of a new ledger key, which is also its checkpoints' origin line.")
    var ledgerName = "\(ProcessInfo.processInfo.hostName)/attendance-ledger"

    @Option(
        help: """
            A witness whose cosignatures of the ledger's checkpoints this server keeps: its verifier key \
            (<name>+<key id>+<key>, as `attendance witness` prints it). Repeat for several witnesses.
            """)
    var witnessKey: [String] = []

    @Option(
        help: """
            How long a device event's answer may wait, in milliseconds, for its row to be in the ledger's \
            tree, so that it carries its receipt; up to 10000. 0 turns receipts in the answers off (the \
            phones fetch them).
            """)
    var receiptWait: Int64 = ServerOptions().receiptWaitMilliseconds

    @Option(help: "Forget idempotency keys this many days after their request (at least 3: a phone's 72 h offline).")
    var idempotencyRetentionDays: Double = IngestLimits().idempotencyRetentionSeconds / 86_400

    @Option(
        help: """
            A file holding the admin token (at least 16 characters; a final newline is ignored), instead of \
            ATTENDANCE_ADMIN_TOKEN: a secret kept out of the environment (systemd's LoadCredential).
            """)
    var adminTokenFile: String?

    /// The admin token the operator configured, from ATTENDANCE_ADMIN_TOKEN or --admin-token-file,
    /// and where it came from (for what the server prints).
    func configuredAdminToken() throws -> (token: String, source: String)? {
        let environment = ProcessInfo.processInfo.environment["ATTENDANCE_ADMIN_TOKEN"]
        guard let adminTokenFile else { return environment.map { ($0, "the value of ATTENDANCE_ADMIN_TOKEN") } }
        guard environment == nil else {
            throw CommandFailure("ATTENDANCE_ADMIN_TOKEN and --admin-token-file are both set; give one admin token")
        }
        let text: String
        do { text = try String(contentsOfFile: adminTokenFile, encoding: .utf8) } catch {
            throw CommandFailure("--admin-token-file '\(adminTokenFile)' can't be read: \(error.localizedDescription)")
        }
        var token = Substring(text)
        if token.hasSuffix("\n") { token = token.dropLast() }
        if token.hasSuffix("\r") { token = token.dropLast() }
        guard token.count >= 16, !token.contains(where: \.isNewline) else {
            throw CommandFailure(
                "--admin-token-file '\(adminTokenFile)' holds \(token.count) characters"
                    + (token.contains(where: \.isNewline) ? " on several lines" : "")
                    + "; expected one line of at least 16 characters")
        }
        return (String(token), "the contents of \(adminTokenFile)")
    }

    func validate() throws {
        guard ["text", "json"].contains(logFormat) else {
            throw ValidationError("--log-format must be text or json, got '\(logFormat)'")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level must be trace, debug, info, notice, warning, error or critical, got '\(logLevel)'")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError(
                "--tls-cert and --tls-key go together: got only " + (tlsCert == nil ? "--tls-key" : "--tls-cert"))
        }
        for key in witnessKey {
            do { _ = try CosignatureVerifier(encoded: key) } catch {
                throw ValidationError(
                    "--witness-key is '\(key.prefix(120))'; expected a witness's verifier key "
                        + "<name>+<key id>+<base64 key> (\(error))")
            }
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
        guard (0...10_000).contains(receiptWait) else {
            throw ValidationError("--receipt-wait must be 0 to 10000 milliseconds, got \(receiptWait)")
        }
        guard maxFutureSeconds >= 0, maxFutureSeconds.isFinite else {
            throw ValidationError("--max-future-seconds must be ≥ 0, got \(maxFutureSeconds)")
        }
        guard maxPastSeconds > 0, maxPastSeconds.isFinite else {
            throw ValidationError("--max-past-seconds must be > 0, got \(maxPastSeconds)")
        }
        guard idempotencyRetentionDays >= 3, idempotencyRetentionDays.isFinite else {
            throw ValidationError(
                "--idempotency-retention-days must be at least 3 (a phone's 72 h offline), "
                    + "got \(idempotencyRetentionDays)"
            )
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "attendance.server")
        let adminToken = try configuredAdminToken()
        let serving: ServerDatabase.Serving
        do {
            serving = try ServerDatabase.openForServing(database, logger: logger)
        } catch let problem as DomainError {
            throw CommandFailure(problem.detail)
        } catch {
            throw CommandFailure("can't open the database '\(Self.redacted(database))': \(error)")
        }
        let repository = serving.repository
        do {
            var limits = IngestLimits()
            limits.maxFutureSeconds = maxFutureSeconds
            limits.maxPastSeconds = maxPastSeconds
            limits.idempotencyRetentionSeconds = idempotencyRetentionDays * 86_400
            let tls = tlsCert.flatMap { cert in tlsKey.map { ServerTLS(certificatePath: cert, privateKeyPath: $0) } }
            let key = try LedgerKeyFile.loadOrCreate(path: ledgerKeyPath, name: ledgerName)
            if key.created { Self.say("Ledger key created in \(ledgerKeyPath) (keep it secret and backed up apart).") }
            Self.say("Ledger checkpoints are signed by the note verifier key \(key.signer.verifier.encoded)")
            let witnesses = try witnessKey.map(CosignatureVerifier.init(encoded:))
            for witness in witnesses { Self.say("Keeping the cosignatures of the witness \(witness.name).") }
            let options = ServerOptions(
                host: host, port: port, limits: limits, tls: tls, ledgerSigner: key.signer, witnessKeys: witnesses,
                receiptWaitMilliseconds: receiptWait)
            let scheme = options.scheme
            let where_ = "\(repository.backendName) at \(Self.redacted(database))"
            let app = try AttendanceHTTPServer.application(
                repository: repository, options: options, logger: logger, environment: .live,
                onListening: { [host] bound in
                    Self.say("Listening on \(scheme)://\(host):\(bound) (\(where_)); Ctrl-C stops.")
                    Self.say("Console: \(scheme)://\(host):\(bound)/console")
                })
            // Stopped in reverse order: the HTTP server drains first, then the database's pool.
            let group = ServiceGroup(
                configuration: .init(
                    services: serving.services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
                        + [
                            .init(
                                service: ServerDatabase.Prepared(
                                    prepare: { [database, ownerEmail] in
                                        try await Self.prepare(
                                            serving, database: database, ownerEmail: ownerEmail, adminToken: adminToken)
                                    }, then: app))
                        ],
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
            repository.shutdown()
            Self.say("Stopped.")
        } catch let failure as CommandFailure {
            repository.shutdown()
            throw failure
        } catch let problem as DomainError {
            repository.shutdown()
            throw CommandFailure(problem.detail)
        } catch let problem as Problem {
            repository.shutdown()
            throw CommandFailure(problem.detail)
        } catch {
            repository.shutdown()
            throw error
        }
    }

    /// Before the server listens: the migrations, then a first start's admin token and owner
    /// account, each printed once.
    private static func prepare(
        _ serving: ServerDatabase.Serving, database: String, ownerEmail: String,
        adminToken configured: (token: String, source: String)?
    ) async throws {
        do {
            try await serving.prepare()
        } catch {
            throw CommandFailure("can't open the database '\(Self.redacted(database))': \(error)")
        }
        let repository = serving.repository
        if let token = try await AuthService(repository: repository, environment: .live).installAdminToken(
            configured: configured?.token)
        {
            Self.say("Admin token (shown once; the server keeps only its hash): \(token)")
        } else if let configured {
            Self.say("Admin token: \(configured.source)")
        }
        if let owner = try await AccountService(
            repository: repository, codes: TOTPCodes(), environment: .live
        ).bootstrapOwner(email: ownerEmail),
            let password = owner.generatedPassword
        {
            Self.say("Console sign-in (shown once): \(owner.account.email) with password \(password)")
        }
    }

    /// `--ledger-key`, or its default: beside a SQLite file, or in the working directory.
    private var ledgerKeyPath: String {
        if let ledgerKey { return ledgerKey }
        guard !database.hasPrefix("postgres://"), !database.hasPrefix("postgresql://") else {
            return "attendance-ledger.key"
        }
        return URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent(
            "attendance-ledger.key"
        ).path
    }

    /// A line on standard output, unbuffered, so a supervisor or a script sees it at once.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The database location without its password, for messages and logs.
    static func redacted(_ location: String) -> String {
        guard var components = URLComponents(string: location), components.password != nil else { return location }
        components.password = "***"
        return components.string ?? location
    }
}
