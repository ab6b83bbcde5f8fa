import AttendanceConsole
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle

/// How `attendance serve` (and the simulator, and the tests) run the server.
public struct ServerOptions: Sendable {
    /// The address to listen on; `127.0.0.1` keeps it on this machine.
    public var host: String
    /// 0 picks a free port (tests); the chosen one is reported by `RunningServer.port`.
    public var port: Int
    public var limits: IngestLimits
    /// A connection with no request for this long is closed.
    public var idleTimeoutSeconds: Int64
    /// How often idempotency keys past their retention are purged (and once at start).
    public var purgeIntervalSeconds: Int64
    /// How often committed ledger rows are sealed into the chain.
    public var sealIntervalMilliseconds: Int64
    /// bcrypt's cost for console passwords (12; tests use less).
    public var bcryptCost: UInt8
    /// HTTPS with this certificate and key; nil serves plain HTTP (behind a TLS-terminating proxy).
    public var tls: ServerTLS?
    /// Signs the ledger's checkpoints (`attendance serve` reads it from `--ledger-key`); by default a
    /// key made for this process alone, which nobody outside can check against.
    public var ledgerSigner: NoteSigner
    /// How often the server checks the ledger's tail (and once at start).
    public var ledgerCheckIntervalSeconds: Int64
    /// The witnesses whose cosignatures the server keeps (`--witness-key`).
    public var witnessKeys: [CosignatureVerifier]
    /// How long a device event's answer may wait for its row to be in the ledger's tree, for its
    /// receipt (0: the answers carry no receipts; the phones fetch them).
    public var receiptWaitMilliseconds: Int64

    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: IngestLimits = IngestLimits(),
        idleTimeoutSeconds: Int64 = 75, purgeIntervalSeconds: Int64 = 3_600,
        sealIntervalMilliseconds: Int64 = 1_000, bcryptCost: UInt8 = 12, tls: ServerTLS? = nil,
        ledgerSigner: NoteSigner = .ephemeral, ledgerCheckIntervalSeconds: Int64 = 300,
        witnessKeys: [CosignatureVerifier] = [], receiptWaitMilliseconds: Int64 = 2_000
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.purgeIntervalSeconds = purgeIntervalSeconds
        self.sealIntervalMilliseconds = sealIntervalMilliseconds
        self.bcryptCost = bcryptCost
        self.tls = tls
        self.ledgerSigner = ledgerSigner
        self.ledgerCheckIntervalSeconds = ledgerCheckIntervalSeconds
        self.witnessKeys = witnessKeys
        self.receiptWaitMilliseconds = receiptWaitMilliseconds
    }

    /// `https` when the server terminates TLS itself, otherwise `http`.
    public var scheme: String { tls == nil ? "http" : "https" }
}

/// Opens the store `--database` names: a `postgres://` or `postgresql://` URL selects PostgreSQL,
/// anything else is a SQLite file path (created on first start). Migrations run here.
public enum ServerDatabase {
    public static func open(_ location: String, logger: Logger) async throws -> any ServerRepository {
        if isPostgres(location) {
            return try await PostgresRepository.connect(url: location, logger: logger)
        }
        return try openForServing(location, logger: logger).repository
    }

    /// A store opened for `attendance serve`: on PostgreSQL the pool is a service to run beside the
    /// HTTP server (started and stopped by the same ServiceGroup) and the migrations run in
    /// `prepare`, once it runs; a SQLite file is opened and migrated here.
    public struct Serving: Sendable {
        public var repository: any ServerRepository
        public var services: [any Service]
        public var prepare: @Sendable () async throws -> Void
        /// Where the heavy reads go: the primary, or a standby while it keeps up (`--read-database`).
        public var reads: ReadRoute
        /// Keeps `reads` following the standby; nil without one.
        var follower: StandbyFollower?
        /// The services the application runs once the database is ready (the standby's follower).
        public var background: [any Service] { follower.map { [$0] } ?? [] }
    }

    /// Runs `prepare`, then `service`, in one task: the application and its own services (the
    /// purger, the sealer, the directory watcher) start only once the migrations are done, while
    /// the database's pool, a service before it in the group, already runs.
    public struct Prepared: Service {
        public var prepare: @Sendable () async throws -> Void
        public var service: any Service

        public init(prepare: @escaping @Sendable () async throws -> Void, then service: any Service) {
            self.prepare = prepare
            self.service = service
        }

        public func run() async throws {
            try await prepare()
            try await service.run()
        }
    }

    /// A `postgres://` or `postgresql://` URL; anything else is a SQLite path.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    public static func openForServing(
        _ location: String, readStandby: ReadStandby? = nil, logger: Logger
    ) throws -> Serving {
        if isPostgres(location) {
            let repository = try PostgresRepository.unstarted(url: location, logger: logger)
            var serving = Serving(
                repository: repository, services: [repository.pool], prepare: { try await repository.migrate() },
                reads: ReadRoute(primary: repository))
            if let readStandby {
                let standby = try PostgresRepository.unstarted(url: readStandby.url, logger: logger)
                serving.reads = ReadRoute(
                    primary: repository, standby: standby, maxLagSeconds: readStandby.maxLagSeconds, now: { Date() })
                serving.services.append(standby.pool)
                serving.follower = StandbyFollower(
                    route: serving.reads, primary: repository, standby: standby, logger: logger)
            }
            return serving
        }
        guard readStandby == nil else {
            throw DomainError.field(
                "--read-database", readStandby?.url ?? "", expected: "no standby beside a SQLite file")
        }
        guard !location.isEmpty else {
            throw DomainError.field("--database", location, expected: "a SQLite file path or a postgres:// URL")
        }
        let directory = URL(fileURLWithPath: location).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DomainError.field(
                "--database", location, expected: "a file in an existing directory ('\(directory)' does not exist)")
        }
        let repository = try SQLiteRepository.open(path: location)
        return Serving(repository: repository, services: [], prepare: {}, reads: ReadRoute(primary: repository))
    }
}

/// The HTTP server: Hummingbird routes generated from openapi.yaml, behind the request middleware
/// (request id, body limit, log line, metrics), the problem middleware and authentication.
public enum AttendanceHTTPServer {
    /// The OpenAPI document served at `/openapi.yaml` (the package's resource).
    public static func contract() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw Problem(
                500, "Contract missing",
                "openapi.yaml is not in the AttendanceHTTP resource bundle at \(Bundle.module.bundlePath)")
        }
        return try Data(contentsOf: url)
    }

    /// The application, ready to run as a service. `onListening` receives the bound port.
    public static func application(
        repository: any ServerRepository, options: ServerOptions, logger: Logger,
        environment: ServerEnvironment, reads: ReadRoute? = nil, background extra: [any Service] = [],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let reads = reads ?? ReadRoute(primary: repository)
        let metrics = ServerMetrics()
        let ledgerHealth = LedgerHealth()
        let watch = DirectoryWatch(repository: repository)
        let auth = AuthService(repository: repository, watch: watch, environment: environment)
        let hub = PresenceHub(repository: repository, environment: environment)
        let accounts = AccountService(
            repository: repository, bcryptCost: options.bcryptCost, codes: TOTPCodes(), environment: environment)
        let services = ConsoleServices(
            repository: repository, reads: reads,
            admin: AdminService(repository: repository, observer: hub, environment: environment),
            auth: auth,
            corrections: CorrectionService(repository: repository, observer: hub, environment: environment),
            requests: RequestService(repository: repository, observer: hub, environment: environment),
            timesheets: TimesheetService(reads: reads, environment: environment),
            payPeriods: PayPeriodService(repository: repository, environment: environment),
            timesheetSettings: TimesheetSettingsService(repository: repository, environment: environment),
            accounts: accounts,
            signIn: SignInService(accounts: accounts, environment: environment),
            tokens: APITokenService(repository: repository, environment: environment), ledgerHealth: ledgerHealth)
        // Receipts in the answers (LEDGER.md, "Receipts"); `--receipt-wait 0` turns them off.
        let growths = options.receiptWaitMilliseconds > 0 ? RecentTreeGrowths() : nil
        let sealer = LedgerSealer(
            repository: repository, signer: options.ledgerSigner,
            interval: .milliseconds(options.sealIntervalMilliseconds), batch: 5_000,
            metrics: metrics, recent: growths, logger: logger, environment: environment)
        if growths != nil { sealer.sealInEachGroupCommit() }
        let rounds = sealer.rounds
        let sealRound: @Sendable () async throws -> Void = { try await rounds.round() }
        let api = AttendanceAPI(
            repository: repository, reads: reads,
            ingest: IngestService(
                repository: repository, answers: ContractAnswers(), limits: options.limits,
                observer: hub, watch: watch,
                environment: environment),
            admin: services.admin, auth: auth, corrections: services.corrections,
            requests: services.requests, timesheets: services.timesheets,
            timesheetSettings: services.timesheetSettings,
            payPeriods: services.payPeriods,
            deviceStates: DeviceStateService(repository: repository, environment: environment),
            metrics: metrics, ledgerHealth: ledgerHealth,
            witnesses: WitnessService(
                repository: repository, witnesses: options.witnessKeys, now: { environment.now() }),
            receipts: ReceiptService(
                repository: repository, verifier: options.ledgerSigner.verifier, logger: logger,
                now: { environment.now() }),
            answerReceipts: growths.map { growths in
                AnswerReceipts(
                    repository: repository, recent: growths, seal: sealRound,
                    wait: .milliseconds(options.receiptWaitMilliseconds), logger: logger)
            },
            document: try contract())
        let router = Router(context: AttendanceRequestContext.self)
        let routes = RouteTable()
        if options.tls != nil { router.add(middleware: HTTPSSchemeMiddleware()) }
        router.add(
            middleware: RequestMiddleware(
                logger: logger, metrics: metrics, maxBodyBytes: options.limits.maxBodyBytes,
                routes: routes))
        router.add(middleware: DirectoryRefreshMiddleware(watch: watch))
        try api.registerHandlers(
            on: RecordingTransport(inner: router, table: routes), configuration: Wire.configuration,
            middlewares: [
                ProblemMiddleware(logger: logger), ContentDispositionMiddleware(), AuthMiddleware(auth: auth),
                EmptyBodyMiddleware(),
                StoredAnswerMiddleware(),
            ])
        try Console(
            services: services, hub: hub, logger: logger,
            record: { operation, principal in
                RequestRecord.current?.record(operation: operation)
                if let principal { RequestRecord.current?.record(principal: principal) }
            }, environment: environment
        ).register(on: router)
        let purger = IdempotencyPurger(
            repository: repository, retentionSeconds: options.limits.idempotencyRetentionSeconds,
            interval: .seconds(options.purgeIntervalSeconds), metrics: metrics, logger: logger,
            environment: environment)
        let watchLedger = LedgerWatch(
            repository: repository, verifier: options.ledgerSigner.verifier, health: ledgerHealth,
            interval: .seconds(options.ledgerCheckIntervalSeconds), rows: 10_000, metrics: metrics, logger: logger,
            environment: environment)
        var background: [any Service] =
            [
                DirectoryWatcher(watch: watch, logger: logger), purger, sealer, watchLedger, hub,
            ] + extra
        // Replicas share PostgreSQL: live pages follow what the other servers commit too.
        if repository.backendName == "postgresql" {
            background.append(
                PresenceFollower(repository: repository, hub: hub, logger: logger, environment: environment))
        }
        let http = HTTPServerBuilder.http1ClosingWhenAsked(idleTimeout: .seconds(options.idleTimeoutSeconds))
        let server =
            try options.tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: try $0.configuration()) } ?? http
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            services: background,
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? options.port) },
            logger: logger)
    }
}

/// A server started in this process (the simulator, the tests): stop it to drain and close.
public final class RunningServer: Sendable {
    public let port: Int
    public let repository: any ServerRepository
    private let scheme: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)")! }

    /// Starts the server on `repository` and returns once it listens.
    public static func start(
        repository: any ServerRepository, options: ServerOptions = ServerOptions(port: 0),
        logger: Logger = Logger(label: "attendance.http"),
        environment: ServerEnvironment
    ) async throws -> RunningServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try AttendanceHTTPServer.application(
            repository: repository, options: options, logger: logger, environment: environment,
            onListening: { port in
                continuation.yield(port)
                continuation.finish()
            })
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw Problem(
                500, "Server did not start",
                "the HTTP server stopped before it listened on \(options.host):\(options.port)")
        }
        return RunningServer(port: port, repository: repository, scheme: options.scheme, group: group, task: task)
    }

    private init(
        port: Int, repository: any ServerRepository, scheme: String, group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.port = port
        self.repository = repository
        self.scheme = scheme
        self.group = group
        self.task = task
    }

    /// Finishes the requests in flight, closes the listener, then the store.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        repository.shutdown()
    }
}
