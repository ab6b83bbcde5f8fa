import Foundation
import GRDB

/// A consistent copy of a SQLite database taken while a server writes to it, and the copy's
/// restore into a new file, both with SQLite's online backup (docs/OPERATIONS.md, "Backups").
/// The copy is the database as it was when its read began: every transaction committed before,
/// nothing of one committed after. It is written to a temporary name beside the destination and
/// renamed when complete, so a failed copy never leaves a file that looks whole.
public enum SQLiteBackup {
    /// What a copy holds.
    public struct Contents: Sendable, Equatable {
        public var ledgerRows: Int64
        public var lastLedgerId: Int64
        public var sessions: Int64
        public var bytes: Int64
    }

    /// Copies the database at `source` to the new file `destination`.
    public static func copy(from source: String, to destination: String) throws -> Contents {
        guard isSQLite(source) else {
            throw BackupError("'\(source)' is not a SQLite database (its first bytes are not SQLite's header)")
        }
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let reader = try DatabasePool(path: source, configuration: configuration)
        try write(destination) { target in try reader.backup(to: target) }
        return try contents(of: destination)
    }

    /// Copies the backup at `backup` to the new database file `destination`, after checking that
    /// it is a whole attendance database (`PRAGMA integrity_check`, a ledger table).
    public static func restore(from backup: String, to destination: String) throws -> Contents {
        guard isSQLite(backup) else {
            throw BackupError("'\(backup)' is not a SQLite backup (its first bytes are not SQLite's header)")
        }
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let reader = try DatabaseQueue(path: backup, configuration: configuration)
        let problems = try reader.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard problems == ["ok"] else {
            throw BackupError(
                "'\(backup)' is damaged: \(problems.prefix(5).joined(separator: "; ")); nothing was restored")
        }
        guard try reader.read({ db in try db.tableExists("ledger_events") }) else {
            throw BackupError("'\(backup)' is a SQLite file but not an attendance database (it has no ledger)")
        }
        try write(destination) { target in try reader.backup(to: target) }
        return try contents(of: destination)
    }

    /// True when the file begins with SQLite's header.
    public static func isSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\u{0}".utf8)
    }

    /// Runs `fill` on a new database at a temporary name beside `destination`, then renames it.
    private static func write(_ destination: String, _ fill: (DatabaseQueue) throws -> Void) throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw BackupError("'\(destination)' exists; a backup or restore writes a new file and never replaces one")
        }
        let partial = destination + ".partial"
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        do {
            // A queue, closed before the rename: no WAL or shared-memory file is left beside it.
            let target = try DatabaseQueue(path: partial)
            try fill(target)
            // The copy took the source's WAL mode with its pages; one file, with nothing beside it,
            // is what a backup should be (a server switches it back to WAL when it opens it).
            try target.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try target.close()
            try FileManager.default.moveItem(atPath: partial, toPath: destination)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: partial + suffix)
            }
            throw error
        }
    }

    private static func contents(of path: String) throws -> Contents {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let counts = try queue.read { db in
            let rows = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM ledger_events") ?? 0
            let last = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM ledger_events") ?? 0
            let sessions = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions") ?? 0
            return (rows: rows, last: last, sessions: sessions)
        }
        try queue.close()
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return Contents(ledgerRows: counts.rows, lastLedgerId: counts.last, sessions: counts.sessions, bytes: bytes)
    }
}

/// A backup or restore that can't be done, with what to do about it.
public struct BackupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
