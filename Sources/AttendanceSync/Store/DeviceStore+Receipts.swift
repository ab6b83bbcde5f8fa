import AttendanceModels
import Foundation
import GRDB

/// What the phone knows of the ledger (LEDGER.md, "Receipts"): the key it pinned, the last
/// checkpoint it accepted, how many of its rows it holds receipts for, and a problem it found.
public struct LedgerReceiptState: Hashable, Sendable {
    /// The server's note verifier key, pinned on the first page of receipts.
    public var logKey: String
    /// The last checkpoint the phone accepted, as signed.
    public var checkpoint: String?
    public var receipts: Int
    /// The newest row a receipt is held for (where the next page starts).
    public var lastRowId: Int64
    public var problem: String?
    public var problemAt: Date?
    /// Whether the server was told of the problem.
    public var problemReported: Bool

    public init(
        logKey: String, checkpoint: String?, receipts: Int, lastRowId: Int64, problem: String?, problemAt: Date?,
        problemReported: Bool
    ) {
        self.logKey = logKey
        self.checkpoint = checkpoint
        self.receipts = receipts
        self.lastRowId = lastRowId
        self.problem = problem
        self.problemAt = problemAt
        self.problemReported = problemReported
    }

    /// The last accepted checkpoint's tree size.
    public var checkedSize: Int64? {
        checkpoint.flatMap { try? SignedNote.parse($0).text }.flatMap { try? Checkpoint(text: $0) }?.size
    }
}

extension DeviceStore {
    static func registerReceipts(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-27 ledger receipts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ledgerReceipts (
                        rowId INTEGER PRIMARY KEY,
                        leafIndex INTEGER NOT NULL,
                        entry TEXT NOT NULL,
                        proof BLOB NOT NULL,
                        checkpointSize INTEGER NOT NULL,
                        checkedAt REAL NOT NULL
                    );
                    CREATE TABLE ledgerCheckpoints (
                        size INTEGER PRIMARY KEY,
                        note TEXT NOT NULL,
                        consistencyFrom INTEGER,
                        consistencyProof BLOB
                    );
                    CREATE TABLE ledgerState (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        logKey TEXT NOT NULL,
                        checkpoint TEXT,
                        problem TEXT,
                        problemAt REAL,
                        problemReported INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
    }

    /// Receipts as the events' answers carried them, unchecked until `ReceiptKeeper` checks them
    /// against the checkpoint it accepted from the pages.
    static func registerAnswerReceipts(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-28 answer receipts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE answerReceipts (
                        rowId INTEGER PRIMARY KEY,
                        leafIndex INTEGER NOT NULL,
                        entry TEXT NOT NULL,
                        proof BLOB NOT NULL,
                        checkpoint TEXT NOT NULL,
                        answeredAt REAL NOT NULL
                    );
                    """)
        }
    }

    /// Keeps the receipts answers carried (a replayed answer's receipt is the same row's: kept once).
    public func keepAnswerReceipts(_ receipts: [AnswerReceipt], at time: Date) throws {
        guard !receipts.isEmpty else { return }
        try transaction { db in
            for answer in receipts {
                let receipt = answer.receipt
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO answerReceipts (rowId, leafIndex, entry, proof, checkpoint, answeredAt)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        receipt.rowId, receipt.leafIndex, receipt.entry, Data(receipt.proof.joined()),
                        answer.checkpoint, time.timeIntervalSince1970,
                    ])
            }
        }
    }

    /// The answers' receipts not confirmed yet, by row id.
    public func answerReceipts() throws -> [AnswerReceipt] {
        try reading { db in
            try Row.fetchAll(
                db, sql: "SELECT rowId, leafIndex, entry, proof, checkpoint FROM answerReceipts ORDER BY rowId"
            ).map { row in
                AnswerReceipt(
                    receipt: LedgerReceipt(
                        rowId: row["rowId"], leafIndex: row["leafIndex"], entry: row["entry"],
                        proof: Self.hashes(row["proof"])),
                    checkpoint: row["checkpoint"])
            }
        }
    }

    /// Drops the answers' receipts whose rows' page receipts were found the same.
    public func confirmAnswerReceipts(_ rowIds: [Int64]) throws {
        guard !rowIds.isEmpty else { return }
        try transaction { db in
            try db.execute(
                sql: "DELETE FROM answerReceipts WHERE rowId IN (\(databaseQuestionMarks(count: rowIds.count)))",
                arguments: StatementArguments(rowIds))
        }
    }

    /// The entries of the page receipts kept for these rows, by row id.
    public func keptEntries(_ rowIds: [Int64]) throws -> [Int64: String] {
        guard !rowIds.isEmpty else { return [:] }
        return try reading { db in
            var entries: [Int64: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT rowId, entry FROM ledgerReceipts WHERE rowId IN (\(databaseQuestionMarks(count: rowIds.count)))",
                arguments: StatementArguments(rowIds))
            {
                entries[row["rowId"]] = row["entry"]
            }
            return entries
        }
    }

    public func ledgerReceiptState() throws -> LedgerReceiptState? {
        try reading { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM ledgerState WHERE id = 1") else { return nil }
            let counts = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(MAX(rowId), 0) FROM ledgerReceipts")
            let problemAt: Double? = row["problemAt"]
            return LedgerReceiptState(
                logKey: row["logKey"], checkpoint: row["checkpoint"], receipts: counts?[0] ?? 0,
                lastRowId: counts?[1] ?? 0, problem: row["problem"],
                problemAt: problemAt.map(Date.init(timeIntervalSince1970:)), problemReported: row["problemReported"])
        }
    }

    /// Pins the server's key the first time (a later call keeps the first).
    public func pinLedgerKey(_ key: String) throws {
        try transaction { db in
            try db.execute(
                sql: "INSERT INTO ledgerState (id, logKey) VALUES (1, ?) ON CONFLICT(id) DO NOTHING", arguments: [key])
        }
    }

    /// Keeps a checked page: its receipts, its checkpoint (with the consistency proof from the
    /// last one, when one was checked) as the last accepted, together.
    public func keepReceipts(
        _ receipts: [LedgerReceipt], checkpoint: String, size: Int64,
        consistency: (from: Int64, proof: [MerkleTree.Hash])?, at time: Date
    ) throws {
        try transaction { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO ledgerCheckpoints (size, note, consistencyFrom, consistencyProof)
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [size, checkpoint, consistency?.from, consistency.map { Data($0.proof.joined()) }])
            for receipt in receipts {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO ledgerReceipts
                            (rowId, leafIndex, entry, proof, checkpointSize, checkedAt)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        receipt.rowId, receipt.leafIndex, receipt.entry, Data(receipt.proof.joined()), size,
                        time.timeIntervalSince1970,
                    ])
            }
            try db.execute(sql: "UPDATE ledgerState SET checkpoint = ? WHERE id = 1", arguments: [checkpoint])
        }
    }

    /// Records what the phone found wrong (the first problem stays until the next is found).
    public func recordLedgerProblem(_ problem: String, at time: Date) throws {
        try transaction { db in
            try db.execute(
                sql: "UPDATE ledgerState SET problem = ?, problemAt = ?, problemReported = 0 WHERE id = 1",
                arguments: [problem, time.timeIntervalSince1970])
        }
    }

    public func markLedgerProblemReported() throws {
        try transaction { db in try db.execute(sql: "UPDATE ledgerState SET problemReported = 1 WHERE id = 1") }
    }

    /// Every receipt kept, by row id, with the size of the checkpoint its proof leads to (the
    /// employee's "my record" export).
    public func ledgerReceipts() throws -> [(receipt: LedgerReceipt, checkpointSize: Int64)] {
        try reading { db in
            try Row.fetchAll(
                db, sql: "SELECT rowId, leafIndex, entry, proof, checkpointSize FROM ledgerReceipts ORDER BY rowId"
            ).map { row in
                let receipt = LedgerReceipt(
                    rowId: row["rowId"], leafIndex: row["leafIndex"], entry: row["entry"],
                    proof: Self.hashes(row["proof"]))
                return (receipt, row["checkpointSize"])
            }
        }
    }

    /// A checkpoint the phone accepted, with the consistency proof from the one before it.
    public struct KeptCheckpoint: Hashable, Sendable {
        public var size: Int64
        public var note: String
        public var consistencyFrom: Int64?
        public var consistencyProof: [MerkleTree.Hash]
    }

    /// Every checkpoint accepted, oldest first.
    public func ledgerCheckpoints() throws -> [KeptCheckpoint] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT * FROM ledgerCheckpoints ORDER BY size").map { row in
                let proof: Data? = row["consistencyProof"]
                return KeptCheckpoint(
                    size: row["size"], note: row["note"], consistencyFrom: row["consistencyFrom"],
                    consistencyProof: proof.map(Self.hashes) ?? [])
            }
        }
    }

    private static func hashes(_ bytes: Data) -> [MerkleTree.Hash] {
        stride(from: 0, to: bytes.count, by: 32).map { Array(bytes[$0..<min($0 + 32, bytes.count)]) }
    }
}
