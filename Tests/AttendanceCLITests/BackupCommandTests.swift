import AttendanceServerTestSupport
import AttendanceTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `attendance backup` while a server takes check-ins, then `attendance restore`: the restored
/// database verifies and holds every session answered before the backup began, on both backends.
@Suite struct BackupCommandTests {
    static func attendance(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), arguments).finish()
    }

    /// One check-in of a new session; its key when the server answered 201.
    static func checkIn(_ port: Int, userId: String, device: String, session: String) async throws -> String? {
        let body =
            #"{"userId":"\#(userId)","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
            + #""ts":"\#(CrashRecoveryTests.tenMinutesAgo())","sessionKey":"\#(session)","#
            + #""source":"automatic","deviceMeta":{"deviceId":"d","platform":"ios"}}"#
        let answer = try await CrashRecoveryTests.send(
            port, "POST", "/v1/attendance/check-in", key: "in-\(session)", json: Data(body.utf8), token: device)
        return answer.status == 201 ? session : nil
    }

    /// A new database of the backend's kind to restore into: a path not yet created, or an empty
    /// PostgreSQL database.
    static func restoreTarget(_ backend: Backend, beside directory: URL) async throws -> String {
        backend == .sqlite
            ? directory.appendingPathComponent("restored.sqlite").path
            : try await ThrowawayPostgres.shared.freshDatabaseURL()
    }

    @Test(arguments: Backend.allCases)
    func aBackupTakenWhileServingRestoresEveryAnsweredSession(backend: Backend) async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("ledger.key").path
        let (server, port) = try await ServeCommandTests.start(
            database: database, environment: ["ATTENDANCE_ADMIN_TOKEN": CrashRecoveryTests.admin],
            arguments: ["--ledger-key", key])
        let (userId, device) = try await CrashRecoveryTests.enrollOne(port)
        var answered: Set<String> = []
        for index in 0..<40 {
            if let session = try await Self.checkIn(port, userId: userId, device: device, session: "before-\(index)") {
                answered.insert(session)
            }
        }
        #expect(answered.count == 40)
        // Check-ins go on while the backup runs; what they add may or may not be in it.
        let load = Task {
            var index = 0
            while !Task.isCancelled {
                _ = try? await Self.checkIn(port, userId: userId, device: device, session: "during-\(index)")
                index += 1
            }
            return index
        }
        let backup = directory.appendingPathComponent(backend == .sqlite ? "backup.sqlite" : "backup.dump").path
        let made = try await Self.attendance(["backup", "--database", database, "--to", backup])
        load.cancel()
        let during = await load.value
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("Backed up to \(backup)"))
        #expect(during > 0)
        server.signal(SIGTERM)
        #expect(await server.finish().status == 0)

        let target = try await Self.restoreTarget(backend, beside: directory)
        let restored = try await Self.attendance([
            "restore", "--from", backup, "--database", target, "--ledger-key", key,
        ])
        #expect(restored.status == 0, "\(restored.stdout)\n\(restored.stderr)")
        #expect(restored.stdout.contains("the chain is intact"))
        let verified = try await Self.attendance(["ledger", "verify", "--database", target, "--ledger-key", key])
        #expect(verified.status == 0, "\(verified.stdout)\n\(verified.stderr)")

        let (again, port2) = try await ServeCommandTests.start(
            database: target, environment: ["ATTENDANCE_ADMIN_TOKEN": CrashRecoveryTests.admin],
            arguments: ["--ledger-key", key])
        let sessions = try await CrashRecoveryTests.sessionKeys(port2)
        #expect(answered.isSubset(of: sessions), "missing: \(answered.subtracting(sessions).sorted())")
        again.signal(SIGTERM)
        #expect(await again.finish().status == 0)
    }

    @Test func aBackupNeverReplacesAFileAndARestoreNeverWritesOverADatabase() async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port) = try await CrashRecoveryTests.serve(database)
        _ = try await CrashRecoveryTests.enrollOne(port)
        server.signal(SIGTERM)
        _ = await server.finish()

        let existing = directory.appendingPathComponent("existing.txt").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let over = try await Self.attendance(["backup", "--database", database, "--to", existing])
        #expect(over.status == 1)
        #expect(over.stderr.contains("--to '\(existing)' exists"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")

        let backup = directory.appendingPathComponent("backup.sqlite").path
        #expect(try await Self.attendance(["backup", "--database", database, "--to", backup]).status == 0)
        let onto = try await Self.attendance(["restore", "--from", backup, "--database", database])
        #expect(onto.status == 1)
        #expect(onto.stderr.contains("'\(database)' exists"))

        let notABackup = try await Self.attendance([
            "restore", "--from", existing, "--database", directory.appendingPathComponent("new.sqlite").path,
        ])
        #expect(notABackup.status == 1)
        #expect(notABackup.stderr.contains("'\(existing)' is not a SQLite backup"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.sqlite").path))

        let missing = try await Self.attendance([
            "backup", "--database", directory.appendingPathComponent("nothing.sqlite").path, "--to",
            directory.appendingPathComponent("b2.sqlite").path,
        ])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("does not exist"))
    }

    @Test func aPostgresRestoreNeedsAnEmptyDatabaseAndADump() async throws {
        let (database, directory) = try await CrashRecoveryTests.freshDatabase(.postgresql)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, port) = try await CrashRecoveryTests.serve(database)
        _ = try await CrashRecoveryTests.enrollOne(port)
        server.signal(SIGTERM)
        _ = await server.finish()
        let dump = directory.appendingPathComponent("backup.dump").path
        #expect(try await Self.attendance(["backup", "--database", database, "--to", dump]).status == 0)

        let onto = try await Self.attendance(["restore", "--from", dump, "--database", database])
        #expect(onto.status == 1)
        #expect(onto.stderr.contains("a restore needs an empty database"))

        let sqliteFile = directory.appendingPathComponent("a.sqlite").path
        try Data("SQLite format 3\u{0}and the rest".utf8).write(to: URL(fileURLWithPath: sqliteFile))
        let empty = try await ThrowawayPostgres.shared.freshDatabaseURL()
        let wrongKind = try await Self.attendance(["restore", "--from", sqliteFile, "--database", empty])
        #expect(wrongKind.status == 1)
        #expect(wrongKind.stderr.contains("is not a PostgreSQL dump"))
    }
}
