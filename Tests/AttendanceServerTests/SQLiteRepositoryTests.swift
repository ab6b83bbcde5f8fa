import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// The SQLite file the server answers from: a 2xx means committed, and committed survives a power
/// loss, so the connection that commits must sync each commit (WAL with `synchronous = FULL`).
@Suite struct SQLiteRepositoryTests {
    @Test func theConnectionThatCommitsRunsInWALWithFullSync() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "server-wal-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let repository = try SQLiteRepository.open(path: path)
        let settings = try repository.durabilitySettings()
        #expect(settings.journalMode == "wal")
        // GRDB's DatabasePool sets its writer to NORMAL (1) when it switches the file to WAL.
        #expect(settings.synchronous == 2)  // FULL
    }
}
