import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import GRDB
import Testing

/// `attendance ledger verify` and `attendance ledger rebuild` as an operator runs them on a SQLite
/// file: exit 0 when all is well, 1 with the first broken link or the sessions that differ.
@Suite struct LedgerCommandTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Finished {
        try await ChildProcess(try builtExecutable("attendance"), ["ledger"] + arguments).finish()
    }

    /// A database with a day of events, written through the server's own ingest.
    static func database() async throws -> String {
        let (_, path) = try ServeCommandTests.temporaryDatabase()
        let repository = try SQLiteRepository.open(path: path)
        try await repository.createSite(
            SiteRecord(id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1)))
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let now = Date()
        let service = IngestService.contract(repository: repository, environment: .clock({ now }))
        let ada = Principal.device("phone-a", user: "alice")
        for index in 0..<5 {
            let ts = RFC3339.format(now.addingTimeInterval(Double(-3_600 + index * 60)))
            let checkIn =
                #"{"userId":"alice","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":1},"#
                + #""ts":"\#(ts)","sessionKey":"s-\#(index)","source":"automatic","deviceMeta":{"deviceId":"phone-a","platform":"ios"}}"#
            #expect(
                try await service.handle(
                    .checkIn, body: Data(checkIn.utf8), idempotencyKey: "in-\(index)",
                    principal: ada
                ).status == 201)
        }
        repository.shutdown()
        return path
    }

    static func sql(_ statement: String, on path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: statement) }
        try queue.close()
    }

    @Test func verifySealsAndFindsAnEditedRow() async throws {
        let written = Date()
        let path = try await Self.database()
        let unsealed = try await Self.run(["verify", "--database", path])
        #expect(unsealed.stdout.contains("sealed rows: 0; not sealed yet: 5"))
        if Date().timeIntervalSince(written) < LedgerService.sealingGrace {
            #expect(unsealed.status == 0, "\(unsealed.stderr)")
        } else {
            // A machine so loaded that the rows waited past the sealing grace before verify read
            // them: unsealed that long means the sealer stopped, and verify may say so.
            #expect(unsealed.status == 0 || unsealed.stderr.contains("is not sealed"), "\(unsealed.stderr)")
        }
        let sealed = try await Self.run(["verify", "--database", path, "--seal"])
        #expect(sealed.status == 0)
        #expect(sealed.stdout.contains("sealed rows: 5; not sealed yet: 0"))
        #expect(sealed.stdout.contains("the chain is intact"))
        try Self.sql("DROP TRIGGER ledger_rows_are_never_changed", on: path)
        try Self.sql("UPDATE ledger_events SET device_at = device_at - 600 WHERE id = 3", on: path)
        let broken = try await Self.run(["verify", "--database", path])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("the chain is broken at seal 3, row 3"))
        let missing = try await Self.run(["verify", "--database", "/nonexistent/attendance.sqlite"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("'--database' is '/nonexistent/attendance.sqlite'"))
    }

    /// `verify --checkpoint`: a checkpoint kept from before holds the rows it covers; deleting the
    /// newest rows and everything derived from them (seals, tree, checkpoints) is caught.
    @Test func verifyHoldsTheRowsToAKeptCheckpoint() async throws {
        let path = try await Self.database()
        let keyPath = path + ".key"
        let signer = try LedgerKeyFile.loadOrCreate(path: keyPath, name: "attendance.test/ledger").signer
        let sealed = try await Self.run(["verify", "--database", path, "--seal", "--ledger-key", keyPath])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdout.contains("the rows match the database's newest checkpoint (5 rows)"))
        let repository = try SQLiteRepository.open(path: path)
        let note = try #require(try await repository.latestCheckpoint()).note
        repository.shutdown()
        let kept = path + ".checkpoint"
        try Data(note.utf8).write(to: URL(fileURLWithPath: kept))
        let held = try await Self.run([
            "verify", "--database", path, "--checkpoint", kept, "--verifier-key", signer.verifier.encoded,
        ])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout.contains("the rows match the kept checkpoint (5 rows)"))
        for statement in [
            "DROP TRIGGER ledger_rows_are_never_deleted", "DROP TRIGGER ledger_seals_are_never_deleted",
            "DROP TRIGGER ledger_tree_append_only_delete", "DROP TRIGGER ledger_checkpoints_append_only_delete",
            "DELETE FROM ledger_checkpoints", "DELETE FROM ledger_tree", "DELETE FROM ledger_seals WHERE sequence = 5",
            "DELETE FROM ledger_events WHERE id = 5",
        ] {
            try Self.sql(statement, on: path)
        }
        let caught = try await Self.run([
            "verify", "--database", path, "--checkpoint", kept, "--verifier-key", signer.verifier.encoded,
        ])
        #expect(caught.status == 1)
        #expect(
            caught.stderr.contains("the kept checkpoint signs 5 rows but the ledger has 4 sealed"), "\(caught.stderr)")
        // A checkpoint signed by another key is refused before anything is read.
        let other = try NoteSigner.generate(name: "attendance.test/ledger")
        let forged = try await Self.run([
            "verify", "--database", path, "--checkpoint", kept, "--verifier-key", other.verifier.encoded,
        ])
        #expect(forged.status == 1)
        #expect(forged.stderr.contains("no valid signature by attendance.test/ledger"), "\(forged.stderr)")
    }

    @Test func rebuildRestoresTheSessionsTheLedgerDerives() async throws {
        let path = try await Self.database()
        #expect(
            try await Self.run(["rebuild", "--database", path, "--check"]).stdout
                .contains("sessions that differed from the table: 0"))
        // Someone edits a session behind the ledger's back…
        try Self.sql("UPDATE sessions SET check_in_at = check_in_at - 7200 WHERE session_key = 's-2'", on: path)
        let check = try await Self.run(["rebuild", "--database", path, "--check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("sessions that differed from the table: 1"))
        #expect(check.stdout.contains("  s-2"))
        // …and the rebuild puts back what the ledger says.
        let rebuilt = try await Self.run(["rebuild", "--database", path])
        #expect(rebuilt.status == 0)
        #expect(rebuilt.stdout.contains("ledger rows: 5; sessions: 5; pending events: 0"))
        #expect(try await Self.run(["rebuild", "--database", path, "--check"]).status == 0)
    }
}
