import AttendanceModels
import Foundation
import GRDB

/// The default store: one SQLite file in WAL mode with foreign keys on (`./attendance.sqlite`).
/// `synchronous = FULL`: a 2xx means committed, and committed survives power loss.
public final class SQLiteRepository: AttendanceRepository, AuthRepository, AdminRepository, AccountRepository,
    TimesheetRepository, PayPeriodRepository, LedgerRepository, LedgerTreeRepository, RequestRepository,
    SQLStorage,
    Sendable
{
    public let backendName = "sqlite"
    package let writer: any DatabaseWriter
    /// Device writes (check-ins, check-outs, heartbeats, batches) commit in groups.
    package let group: SQLiteGroupCommit
    /// The storage port the shared storage code runs on (`SQLStorage`).
    package let sqlite: SQLiteDatabase
    public var database: any SQLDatabase { sqlite }

    /// `migratingThrough`: stop after that migration (the upgrade tests build an older schema).
    public static func open(path: String, migratingThrough last: String? = nil) throws -> SQLiteRepository {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer after opening, not in `prepareDatabase`: GRDB's DatabasePool switches
        // the file to WAL after that hook and sets its writer to `synchronous = NORMAL` while doing
        // so (`Database.setUpWALMode`), where a commit is not synced and a 2xx could be lost to a
        // power loss. The writer is the one connection that commits.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // Each request of a group commit runs in a savepoint, and SQLite keeps a savepoint's
        // journal in a temporary file once it outgrows 64 KiB: ten thousand small writes a second
        // at 64 connections. In memory it costs a group's touched pages; durability is the WAL's.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        // What a write deletes or replaces is zeroed in its page (not left readable in the file): an
        // erased person's name, a deleted personal key. FAST: only where it costs no extra I/O.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = FAST") }
        return try SQLiteRepository(writer: pool, migratingThrough: last)
    }

    /// The journal mode and synchronous level in force on the connection that commits.
    package func durabilitySettings() throws -> (journalMode: String, synchronous: Int) {
        try writer.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            )
        }
    }

    /// Nothing to release: GRDB closes the file when the last reference goes.
    public func shutdown() {}

    public func ping() async throws {
        _ = try await writer.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }
    }

    public static func inMemory() throws -> SQLiteRepository {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        return try SQLiteRepository(writer: DatabaseQueue(configuration: configuration), migratingThrough: nil)
    }

    private init(writer: any DatabaseWriter, migratingThrough last: String?) throws {
        self.writer = writer
        self.group = SQLiteGroupCommit(writer: writer)
        self.sqlite = SQLiteDatabase(writer: writer, group: group)
        try sqlite.writeNow { tx in try await MigrationRunner.migrate(tx, through: last) }
    }
}
