// swift-tools-version: 6.1
// One root package in marked sections (shared, device, tools). Every dependency is justified
// beside it: a first build on 2 cores is the cost each one adds to every CI run.
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "BeaconAttendance",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AttendanceModels", targets: ["AttendanceModels"]),
        .library(name: "AttendanceEngine", targets: ["AttendanceEngine"]),
        .library(name: "AttendanceSync", targets: ["AttendanceSync"]),
        .library(name: "AttendanceAppCore", targets: ["AttendanceAppCore"]),
        .library(name: "AttendanceApple", targets: ["AttendanceApple"]),
        .executable(name: "attendance", targets: ["attendance"]),
    ],
    dependencies: [
        // Argument parsing for the `attendance` CLI (serve, replay, simulate): typed options,
        // generated help and clear usage errors. Small and quick to build.
        // A multipart/form-data parser (the console's file uploads).
        .package(url: "https://github.com/vapor/multipart-kit.git", exact: "4.7.1"),
        // CSV reading (people imported from a spreadsheet).
        .package(url: "https://github.com/swiftcsv/SwiftCSV.git", exact: "0.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLite with WAL, named migrations and safe concurrent access: the device's durable
        // outbox and engine snapshot (and the server's default store). Links the system
        // libsqlite3 on Linux, so the raw-SQLite benchmark baseline uses the same library.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The server's PostgreSQL backend (docs/SERVER.md): an async client with a connection pool and
        // transactions. Brings SwiftNIO, which the HTTP layer (Hummingbird) shares.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Structured logging (PostgresNIO logs through it; so do the server and the CLI).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The HTTP server (docs/SERVER.md): a small SwiftNIO router with swift-service-lifecycle for
        // graceful SIGINT/SIGTERM shutdown. HummingbirdTesting drives it over a real loopback socket.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // openapi.yaml is the contract: the server's types and stubs and the device's client are
        // generated from it at build time (the plugin's cost is measured in docs/SERVER.md).
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        // The device's transport for the generated client (URLSession on iOS and on Linux).
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // HTTPField names for the request-id header (the HTTP types Hummingbird and OpenAPI share).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // NIOCore: the listening channel's bound port (Hummingbird builds on it already).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // ServiceGroup: runs the HTTP server and the PostgreSQL pool together, stops them in order.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `/metrics` in the Prometheus text format, from a registry owned by each server instance.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The ZIP container (deflate through the system zlib) of the XLSX timesheet export: its
        // sheets are written to disk row by row and zipped from there, so memory stays flat.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // SHA-256 and HMAC (session and idempotency keys, the ledger's hashes, the beacon
        // challenge): BoringSSL's on Linux, CryptoKit on Apple platforms. PostgresNIO builds it
        // already, for SCRAM authentication.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Console accounts: bcrypt password hashes (HummingbirdBcrypt, OpenBSD's C code) and TOTP
        // second factors (HummingbirdOTP). Builds on Hummingbird and swift-crypto, already here.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // The console's server-rendered pages: logic-less templates, escaped by default, loaded
        // from the module's resources (no build step, nothing fetched by the browser from outside).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // `attendance serve`'s settings from the environment and a JSON file as well as flags
        // (docs/SERVER.md, "Settings"). Hummingbird builds it already; we add its JSON trait.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON"]),
        // FilePath, which swift-configuration's file provider takes (already built for it).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // MARK: - Shared
        // Value types shared by device, server and tools: Foundation, and swift-crypto for SHA-256.
        .target(
            name: "AttendanceModels", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift6),

        // MARK: - Device
        // The pure, deterministic engine: signal processing, ranging decisions, presence, replay.
        .target(name: "AttendanceEngine", dependencies: ["AttendanceModels"], swiftSettings: strictSwift6),

        // Durability and delivery: the SQLite store (outbox, snapshot, telemetry, trace log), the
        // drainer, the retry policy, the HTTP uploader, and the runtime that runs the engine.
        .target(
            name: "AttendanceSync",
            dependencies: [
                "AttendanceModels", "AttendanceEngine", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSwift6,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // The app's platform-free half: the composition root, enrollment, region budgeting, the
        // beacon challenge, and every screen's view model and formatting (tested on Linux).
        .target(
            name: "AttendanceAppCore",
            dependencies: [
                "AttendanceModels", "AttendanceEngine", "AttendanceSync",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strictSwift6),

        // The Apple adapters (CoreLocation, CoreMotion, CoreBluetooth, BackgroundTasks, URLSession,
        // UserNotifications, OSLog, Keychain, Network). Every file is guarded by `#if canImport(...)`,
        // so Linux builds this module empty; `scripts/check-apple` parses each file with `swiftc -parse`.
        .target(
            name: "AttendanceApple",
            dependencies: ["AttendanceAppCore", "AttendanceSync", "AttendanceEngine", "AttendanceModels"],
            swiftSettings: strictSwift6),

        // MARK: - Server
        // The server's core in four modules, each depending only on the ones above it
        // (docs/ARCHITECTURE.md). AttendanceHTTP and AttendanceConsole build on them.
        //
        // The pure rules: the domain's records, the ledger and its sessions, timesheets, pay
        // periods, access and input rules. No I/O, no clock, no database.
        .target(name: "AttendanceRules", dependencies: ["AttendanceModels"], swiftSettings: strictSwift6),

        // Storage written once over a small SQL port, with what each database needs beside it:
        // SQLite through GRDB (the default), PostgreSQL through PostgresNIO.
        .target(
            name: "AttendanceStorage",
            dependencies: [
                "AttendanceModels", "AttendanceRules",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, to bind and read a cached statement's values on the hot path.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),

        // The services: exactly-once ingest, admin changes, corrections, requests, timesheets, pay
        // periods, accounts and sign-in. They read the time and randomness from `ServerEnvironment`.
        .target(
            name: "AttendanceServer",
            dependencies: [
                "AttendanceModels", "AttendanceRules", "AttendanceStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            exclude: ["Resources/common-passwords.LICENSE.txt"],
            resources: [.copy("Resources/common-passwords.txt")],
            swiftSettings: strictSwift6
        ),

        // Timesheet and session exports: CSV, and XLSX (ZIPFoundation's container over zlib).
        .target(
            name: "AttendanceExports",
            dependencies: [
                "AttendanceModels", "AttendanceRules", "AttendanceStorage", "AttendanceServer",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ],
            swiftSettings: strictSwift6
        ),

        // libqrencode, the system's QR encoder (Debian: libqrencode-dev; a C library, nothing to
        // compile here): the console's second-factor link as a QR code.
        .systemLibrary(
            name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),

        // The web console at /console: sign-in, session cookies and CSRF, the pages (Mustache
        // templates and static files as resources), and the live presence feed (server-sent events).
        .target(
            name: "AttendanceConsole",
            dependencies: [
                "AttendanceModels",
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceExports",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The peer's address (the sign-in throttle's per-address key).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                // The second factor's link as a QR code.
                "CQREncode",
            ],
            resources: [
                .copy("Resources/templates"), .copy("Resources/static"), .copy("Resources/Localizable.xcstrings"),
            ],
            swiftSettings: strictSwift6
        ),

        // The HTTP layer: handlers for the stubs generated from openapi.yaml, auth, problem+json,
        // body limits, request logs, metrics, and the `serve` lifecycle.
        .target(
            name: "AttendanceHTTP",
            dependencies: [
                "AttendanceModels",
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceExports",
                "AttendanceConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTPParserError and the request head's version (`PersistentConnections.swift`); both are
                // built for Hummingbird anyway.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // `serve --tls-cert/--tls-key`: HTTPS without a proxy (iPhones require https). Its
                // swift-nio-ssl is built for PostgresNIO's TLS already.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The console's second factor (TOTPCodes): the core asks through `OneTimeCodes`.
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
            ],
            resources: [.copy("Resources/openapi.yaml")],
            swiftSettings: strictSwift6,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // MARK: - Simulation
        // The field test: a deterministic world driving the real runtime, outbox and HTTP server.
        // HummingbirdTesting: `--transport inprocess` hands requests to the server's router without sockets.
        .target(
            name: "AttendanceSimulation",
            dependencies: [
                "AttendanceModels", "AttendanceEngine", "AttendanceSync", "AttendanceAppCore",
                "AttendanceServer", "AttendanceStorage", "AttendanceHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6),

        // MARK: - Tools
        .executableTarget(
            name: "attendance",
            dependencies: [
                "AttendanceModels",
                "AttendanceEngine",
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceExports",
                "AttendanceHTTP",
                "AttendanceSimulation",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "outbox-bench",
            dependencies: ["AttendanceModels", "AttendanceSync", .product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "bench/outbox",
            swiftSettings: strictSwift6
        ),
        // The benchmark writers' shared argument parsing, error and PostgreSQL client.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/support",
            swiftSettings: strictSwift6
        ),
        // Fills a database with N ledger rows for timing `attendance ledger rebuild` and `verify` (bench/ledger/run).
        .executableTarget(
            name: "ledger-bench",
            dependencies: [
                "AttendanceModels", "AttendanceServer", "AttendanceRules", "AttendanceStorage", "BenchSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/ledger",
            exclude: ["run"],
            swiftSettings: strictSwift6
        ),
        // Fills a database with a month of sessions for timing `attendance timesheets` (bench/timesheets/run).
        .executableTarget(
            name: "timesheet-bench",
            dependencies: [
                "AttendanceModels", "AttendanceServer", "AttendanceRules", "AttendanceStorage", "BenchSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/timesheets",
            exclude: ["run", "alternate"],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "engine-bench",
            dependencies: ["AttendanceModels", "AttendanceEngine"],
            path: "bench/engine",
            swiftSettings: strictSwift6
        ),

        // MARK: - Tests
        .testTarget(
            name: "AttendanceModelsTests", dependencies: ["AttendanceModels", "AttendanceTestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "AttendanceEngineTests", dependencies: ["AttendanceEngine", "AttendanceModels"],
            swiftSettings: strictSwift6),
        // The app's view models, enrollment and composition root; enrollment against the real server.
        .testTarget(
            name: "AttendanceAppCoreTests",
            dependencies: [
                "AttendanceAppCore", "AttendanceSync", "AttendanceEngine", "AttendanceModels", "AttendanceHTTP",
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceServerTestSupport",
                "AttendanceDeviceTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "AttendanceSimulationTests", dependencies: ["AttendanceSimulation", "AttendanceModels"],
            swiftSettings: strictSwift6),
        // The storage backends the server's contract tests run on, with a private PostgreSQL; the
        // device's JSON through the server's own mapping, for tests of the ingest without a socket.
        .target(
            name: "AttendanceServerTestSupport",
            dependencies: [
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceHTTP", "AttendanceConsole",
                "AttendanceModels", "AttendanceTestSupport",
            ],
            path: "Tests/AttendanceServerTestSupport",
            swiftSettings: strictSwift6),
        // GRDB and PostgresNIO: the ledger's tamper and upgrade tests write to the database behind the server's back.
        .testTarget(
            name: "AttendanceServerTests",
            dependencies: [
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceExports", "AttendanceModels",
                "AttendanceServerTestSupport", "AttendanceTestSupport",
                "AttendanceHTTP",
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strictSwift6),
        // The console's pure parts (times, forms, CSRF) and its live feed.
        .testTarget(
            name: "AttendanceConsoleTests",
            dependencies: [
                "AttendanceConsole", "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceModels",
                "AttendanceServerTestSupport",
            ],
            swiftSettings: strictSwift6),
        // The HTTP layer over a real loopback socket, on both backends.
        .testTarget(
            name: "AttendanceHTTPTests",
            dependencies: [
                "AttendanceHTTP", "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceExports",
                "AttendanceModels", "AttendanceServerTestSupport", "AttendanceTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        // Device and server together over HTTP: what the device sends is what the server accepts.
        .testTarget(
            name: "AttendanceIntegrationTests",
            dependencies: [
                "AttendanceServer", "AttendanceRules", "AttendanceStorage", "AttendanceHTTP", "AttendanceSync",
                "AttendanceEngine", "AttendanceModels",
                "AttendanceServerTestSupport", "AttendanceDeviceTestSupport",
            ],
            swiftSettings: strictSwift6),
        // The device's test doubles: a clock moved by hand and ports that record every call.
        .target(
            name: "AttendanceDeviceTestSupport",
            dependencies: ["AttendanceSync", "AttendanceEngine", "AttendanceModels", "AttendanceTestSupport"],
            path: "Tests/AttendanceDeviceTestSupport", swiftSettings: strictSwift6),
        // Helpers shared by the test targets that run built executables as child processes.
        .target(name: "AttendanceTestSupport", path: "Tests/AttendanceTestSupport", swiftSettings: strictSwift6),
        .testTarget(
            name: "AttendanceSyncTests",
            dependencies: [
                "AttendanceSync", "AttendanceEngine", "AttendanceModels", "outbox-crash-probe",
                "AttendanceTestSupport", "AttendanceDeviceTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift6),
        // The child process the crash test kills with SIGKILL, over and over.
        .executableTarget(
            name: "outbox-crash-probe", dependencies: ["AttendanceSync", "AttendanceModels"],
            path: "Tests/OutboxCrashProbe",
            swiftSettings: strictSwift6),
        // Runs the built `attendance` executable end to end (exit status, stdout, stderr).
        .testTarget(
            name: "AttendanceCLITests",
            dependencies: [
                "attendance", "AttendanceTestSupport", "AttendanceServerTestSupport", "AttendanceServer",
                "AttendanceRules", "AttendanceStorage", "AttendanceExports", "AttendanceHTTP",
                "AttendanceModels", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift6),
    ]
)
