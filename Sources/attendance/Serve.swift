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
            the requests in flight and exit 0. One log line per request goes to standard error. Each setting is \
            taken from its flag, else its ATTENDANCE_* variable, else the settings file (--config, JSON), else its \
            default; --show-config prints them. See docs/SERVER.md ("Settings") and docs/CONSOLE.md.
            """
    )

    @Option(help: "A settings file (JSON, keys as in docs/SERVER.md); also ATTENDANCE_CONFIG.")
    var config: String?

    @Flag(help: "Print every setting, its value and where it came from (secrets hidden), and exit.")
    var showConfig = false

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (default 8080; 0 picks a free one).")
    var port: Int?

    @Option(
        help: """
            A SQLite file (created if missing; default ./attendance.sqlite), or a \
            postgres://user:password@host:5432/database URL.
            """)
    var database: String?

    @Option(
        help: """
            A postgres:// URL of a hot standby of --database: timesheets, exports, the audit and the console's \
            lists are read there while it is at most --read-max-lag-seconds behind (docs/OPERATIONS.md).
            """)
    var readDatabase: String?

    @Option(help: "Read from the primary while the standby is further behind than this (default 10 s).")
    var readMaxLagSeconds: Double?

    @Option(help: "The e-mail of the console's owner account, created on a database's first start.")
    var ownerEmail: String?

    @Option(help: "Log format on standard error: text (default) or json.")
    var logFormat: String?

    @Option(help: "Log level: trace, debug, info (default), notice, warning, error or critical.")
    var logLevel: String?

    @Option(help: "Refuse an event whose ts is more than this many seconds ahead of the server's clock (300).")
    var maxFutureSeconds: Double?

    @Option(help: "Refuse an event whose ts is more than this many seconds old (default 30 days).")
    var maxPastSeconds: Double?

    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key); without it, plain HTTP.")
    var tlsCert: String?

    @Option(help: "The file with the PEM private key of --tls-cert (unencrypted).")
    var tlsKey: String?

    @Option(
        help: """
            The file with the key that signs the ledger's checkpoints, created on first start (default: \
            attendance-ledger.key beside a SQLite file, in the working directory for PostgreSQL). Keep it \
            apart from the database's backups; servers on one database share it.
            """)
    var ledgerKey: String?

    @Option(help: "The name of a new ledger key, which is also its checkpoints' origin line.")
    var ledgerName: String?

    @Option(
        help: """
            A witness whose cosignatures of the ledger's checkpoints this server keeps: its verifier key \
            (<name>+<key id>+<key>, as `attendance witness` prints it). Repeat for several witnesses.
            """)
    var witnessKey: [String] = []

    @Option(
        help: """
            How long a device event's answer may wait, in milliseconds, for its row to be in the ledger's \
            tree, so that it carries its receipt; up to 10000 (default 2000). 0 turns receipts in the answers \
            off (the phones fetch them).
            """)
    var receiptWait: Int64?

    @Option(help: "Forget idempotency keys this many days after their request (at least 3; default 30).")
    var idempotencyRetentionDays: Double?

    @Option(
        help: """
            A file holding the admin token (at least 16 characters; a final newline is ignored), instead of \
            ATTENDANCE_ADMIN_TOKEN: a secret kept out of the environment (systemd's LoadCredential).
            """)
    var adminTokenFile: String?

    /// `max-future-seconds` for the setting `maxFutureSeconds`.
    static func flagName(_ key: String) -> String {
        var name = ""
        for character in key {
            if character.isUppercase { name += "-" }
            name += character.lowercased()
        }
        return name
    }

    /// The admin token the operator configured, from ATTENDANCE_ADMIN_TOKEN (or the settings
    /// file's adminToken) or --admin-token-file, and where it came from (for what the server prints).
    static func configuredAdminToken(_ settings: ServeSettings) throws -> (token: String, source: String)? {
        if let token = settings.adminToken {
            let origin = settings.shown.first { $0.key == "adminToken" }?.origin.description ?? "the settings"
            return (token, "the value of \(origin)")
        }
        guard let adminTokenFile = settings.adminTokenFile else { return nil }
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

    func run() async throws {
        let settings = try await ServeSettings.resolve(
            flags: self, environment: ProcessInfo.processInfo.environment)
        if showConfig {
            Self.say(settings.report)
            return
        }
        let json = settings.logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "attendance.server")
        let adminToken = try Self.configuredAdminToken(settings)
        let database = settings.database
        let serving: ServerDatabase.Serving
        do {
            serving = try ServerDatabase.openForServing(
                database,
                readStandby: settings.readDatabase.map {
                    ReadStandby(url: $0, maxLagSeconds: settings.readMaxLagSeconds)
                }, logger: logger)
        } catch let problem as DomainError {
            throw CommandFailure(problem.detail)
        } catch {
            throw CommandFailure("can't open the database '\(Self.redacted(database))': \(error)")
        }
        let repository = serving.repository
        do {
            var limits = IngestLimits()
            limits.maxFutureSeconds = settings.maxFutureSeconds
            limits.maxPastSeconds = settings.maxPastSeconds
            limits.idempotencyRetentionSeconds = settings.idempotencyRetentionDays * 86_400
            let tls = settings.tlsCert.flatMap { cert in
                settings.tlsKey.map { ServerTLS(certificatePath: cert, privateKeyPath: $0) }
            }
            let ledgerKeyPath = Self.ledgerKeyPath(settings)
            let key = try LedgerKeyFile.loadOrCreate(path: ledgerKeyPath, name: settings.ledgerName)
            if key.created { Self.say("Ledger key created in \(ledgerKeyPath) (keep it secret and backed up apart).") }
            Self.say("Ledger checkpoints are signed by the note verifier key \(key.signer.verifier.encoded)")
            let witnesses = settings.witnessKeys
            for witness in witnesses { Self.say("Keeping the cosignatures of the witness \(witness.name).") }
            if let standby = settings.readDatabase {
                Self.say(
                    "Heavy reads go to the standby at \(Self.redacted(standby)) while it is at most "
                        + "\(settings.readMaxLagSeconds) s behind.")
            }
            let options = ServerOptions(
                host: settings.host, port: settings.port, limits: limits, tls: tls, ledgerSigner: key.signer,
                witnessKeys: witnesses, receiptWaitMilliseconds: settings.receiptWait)
            let scheme = options.scheme
            let host = settings.host
            let ownerEmail = settings.ownerEmail
            let where_ = "\(repository.backendName) at \(Self.redacted(database))"
            let app = try AttendanceHTTPServer.application(
                repository: repository, options: options, logger: logger, environment: .live,
                reads: serving.reads, background: serving.background,
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
                                    prepare: {
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
    private static func ledgerKeyPath(_ settings: ServeSettings) -> String {
        if let ledgerKey = settings.ledgerKey { return ledgerKey }
        guard !ServerDatabase.isPostgres(settings.database) else { return "attendance-ledger.key" }
        return URL(fileURLWithPath: settings.database).deletingLastPathComponent().appendingPathComponent(
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
