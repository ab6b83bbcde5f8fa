// swift-tools-version: 6.1
// One root package in marked sections (shared, device, tools). Every dependency is justified
// beside it: a first build on 2 cores is the cost each one adds to every CI run.
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "BeaconAttendance",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AttendanceModels", targets: ["AttendanceModels"]),
        .library(name: "AttendanceEngine", targets: ["AttendanceEngine"]),
        .executable(name: "attendance", targets: ["attendance"]),
    ],
    dependencies: [
        // Argument parsing for the `attendance` CLI (serve, replay, simulate): typed options,
        // generated help and clear usage errors. Small and quick to build.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: - Shared
        // Value types shared by device, server and tools. Foundation only.
        .target(name: "AttendanceModels", swiftSettings: strictSwift6),

        // MARK: - Device
        // The pure, deterministic engine: signal processing, ranging decisions, presence, replay.
        .target(name: "AttendanceEngine", dependencies: ["AttendanceModels"], swiftSettings: strictSwift6),

        // MARK: - Tools
        .executableTarget(
            name: "attendance",
            dependencies: [
                "AttendanceModels",
                "AttendanceEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "engine-bench",
            dependencies: ["AttendanceModels", "AttendanceEngine"],
            path: "bench/engine",
            swiftSettings: strictSwift6
        ),

        // MARK: - Tests
        .testTarget(name: "AttendanceModelsTests", dependencies: ["AttendanceModels"], swiftSettings: strictSwift6),
        .testTarget(name: "AttendanceEngineTests", dependencies: ["AttendanceEngine", "AttendanceModels"], swiftSettings: strictSwift6),
        // Runs the built `attendance` executable end to end (exit status, stdout, stderr).
        .testTarget(name: "AttendanceCLITests", dependencies: ["attendance"], swiftSettings: strictSwift6),
    ]
)
