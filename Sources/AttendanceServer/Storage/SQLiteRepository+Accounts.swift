import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: AccountRepository {
    static func registerAccountMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2026-11-25 accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE accounts (
                        id TEXT PRIMARY KEY,
                        email TEXT NOT NULL UNIQUE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
                        sites TEXT NOT NULL,
                        passwordHash TEXT NOT NULL,
                        totpSecret TEXT,
                        createdAt REAL NOT NULL,
                        deactivatedAt REAL
                    );
                    CREATE TABLE apiTokens (
                        id TEXT PRIMARY KEY,
                        accountId TEXT NOT NULL REFERENCES accounts(id),
                        tokenHash TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
                        createdAt REAL NOT NULL,
                        lastUsedAt REAL,
                        revokedAt REAL
                    );
                    CREATE TABLE consoleSessions (
                        tokenHash TEXT PRIMARY KEY,
                        accountId TEXT NOT NULL REFERENCES accounts(id),
                        csrfToken TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        expiresAt REAL NOT NULL
                    );
                    CREATE INDEX consoleSessions_by_account ON consoleSessions (accountId);
                    """)
        }
    }

    public func accountCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") ?? 0 }
    }

    public func createAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            do {
                try db.execute(
                    sql: """
                        INSERT INTO accounts
                            (id, email, role, sites, passwordHash, totpSecret, createdAt, deactivatedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: StatementArguments(Self.values(account)))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw RepositoryError(kind: .conflict, detail: "an account with e-mail '\(account.email)' exists")
            }
            _ = try Self.audited(true, audit, db: db)
        }
    }

    public func account(id: String) async throws -> AccountRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [id]).map(Self.account)
        }
    }

    public func account(email: String) async throws -> AccountRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE email = ?", arguments: [email]).map(Self.account)
        }
    }

    public func accounts() async throws -> [AccountRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM accounts ORDER BY email").map(Self.account)
        }
    }

    public func updateAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE accounts SET email = ?, role = ?, sites = ?, passwordHash = ?, totpSecret = ?, createdAt = ?,
                        deactivatedAt = ?
                    WHERE id = ?
                    """,
                arguments: StatementArguments(Array(Self.values(account).dropFirst()) + [account.id]))
            return try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func createAPIToken(_ token: APITokenRecord, hash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            try db.execute(
                sql:
                    "INSERT INTO apiTokens (id, accountId, tokenHash, name, role, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    token.id, token.accountId, hash, token.name, token.role.rawValue,
                    token.createdAt.timeIntervalSince1970,
                ])
            _ = try Self.audited(true, audit, db: db)
        }
    }

    public func apiToken(hash: String, now: Date) async throws -> (token: APITokenRecord, account: AccountRecord)? {
        let found = try await writer.read { db -> (APITokenRecord, AccountRecord)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM apiTokens WHERE tokenHash = ?", arguments: [hash]),
                let account = try Row.fetchOne(
                    db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [row["accountId"] as String])
            else { return nil }
            return (try Self.apiToken(row), try Self.account(account))
        }
        guard let (token, account) = found else { return nil }
        if token.revokedAt == nil, DeviceRecord.lastSeenIsStale(token.lastUsedAt, now: now) {
            try await writer.write { db in
                try db.execute(
                    sql: "UPDATE apiTokens SET lastUsedAt = ? WHERE id = ?",
                    arguments: [now.timeIntervalSince1970, token.id])
            }
        }
        return (token, account)
    }

    public func apiTokens(accountId: String?) async throws -> [APITokenRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM apiTokens WHERE ? IS NULL OR accountId = ? ORDER BY createdAt, id",
                arguments: [accountId, accountId]
            ).map(Self.apiToken)
        }
    }

    public func apiToken(id: String) async throws -> APITokenRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apiTokens WHERE id = ?", arguments: [id]).map(Self.apiToken)
        }
    }

    public func revokeAPIToken(id: String, now: Date, audit: LedgerEvent?) async throws -> APITokenRecord? {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE apiTokens SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL",
                arguments: [now.timeIntervalSince1970, id])
            _ = try Self.audited(db.changesCount == 1, audit, db: db)
            return try Row.fetchOne(db, sql: "SELECT * FROM apiTokens WHERE id = ?", arguments: [id]).map(Self.apiToken)
        }
    }

    public func createConsoleSession(_ session: ConsoleSessionRecord, hash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO consoleSessions (tokenHash, accountId, csrfToken, createdAt, expiresAt)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    hash, session.accountId, session.csrfToken, session.createdAt.timeIntervalSince1970,
                    session.expiresAt.timeIntervalSince1970,
                ])
            // Expired sessions are dropped as new ones are made, so the table stays small.
            try db.execute(
                sql: "DELETE FROM consoleSessions WHERE expiresAt <= ?",
                arguments: [session.createdAt.timeIntervalSince1970])
            _ = try Self.audited(true, audit, db: db)
        }
    }

    public func consoleSession(
        hash: String, now: Date
    ) async throws -> (session: ConsoleSessionRecord, account: AccountRecord)? {
        try await writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM consoleSessions WHERE tokenHash = ? AND expiresAt > ?",
                    arguments: [hash, now.timeIntervalSince1970]),
                let account = try Row.fetchOne(
                    db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [row["accountId"] as String])
            else { return nil }
            let session = ConsoleSessionRecord(
                accountId: row["accountId"], csrfToken: row["csrfToken"],
                createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                expiresAt: Date(timeIntervalSince1970: row["expiresAt"]))
            return (session, try Self.account(account))
        }
    }

    public func deleteConsoleSession(hash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM consoleSessions WHERE tokenHash = ?", arguments: [hash])
            _ = try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func deleteConsoleSessions(accountId: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM consoleSessions WHERE accountId = ?", arguments: [accountId])
        }
    }

    private static func values(_ account: AccountRecord) -> [(any DatabaseValueConvertible)?] {
        [
            account.id, account.email, account.role.rawValue, AccountService.text(account.sites), account.passwordHash,
            account.totpSecret,
            account.createdAt.timeIntervalSince1970, account.deactivatedAt?.timeIntervalSince1970,
        ]
    }

    private static func account(_ row: Row) throws -> AccountRecord {
        AccountRecord(
            id: row["id"], email: row["email"],
            role: try StoredValue.decode(
                row["role"] as String, as: Role.self, table: "accounts", row: row["id"] as String, column: "role"),
            sites: AccountRecord.sites(row["sites"]), passwordHash: row["passwordHash"], totpSecret: row["totpSecret"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            deactivatedAt: (row["deactivatedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    private static func apiToken(_ row: Row) throws -> APITokenRecord {
        APITokenRecord(
            id: row["id"], accountId: row["accountId"], name: row["name"],
            role: try StoredValue.decode(
                row["role"] as String, as: Role.self, table: "apiTokens", row: row["id"] as String, column: "role"),
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            lastUsedAt: (row["lastUsedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            revokedAt: (row["revokedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

extension AccountRecord {
    /// The stored list of a manager's sites (comma-separated ids; ids have no commas).
    static func sites(_ text: String) -> [SiteID] { text.split(separator: ",").map { SiteID(String($0)) } }
}
