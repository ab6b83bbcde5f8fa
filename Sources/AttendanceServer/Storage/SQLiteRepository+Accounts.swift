import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: AccountRepository {

    public func accountCount() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") ?? 0 }
    }

    public func createAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            do {
                try db.execute(
                    sql: """
                        INSERT INTO accounts
                            (id, email, role, sites, password_hash, totp_secret, created_at, deactivated_at)
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
                    UPDATE accounts SET email = ?, role = ?, sites = ?, password_hash = ?, totp_secret = ?, created_at = ?,
                        deactivated_at = ?
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
                    "INSERT INTO api_tokens (id, account_id, token_hash, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    token.id, token.accountId, hash, token.name, token.role.rawValue,
                    token.createdAt.timeIntervalSince1970,
                ])
            _ = try Self.audited(true, audit, db: db)
        }
    }

    public func apiToken(hash: String, now: Date) async throws -> (token: APITokenRecord, account: AccountRecord)? {
        let found = try await writer.read { db -> (APITokenRecord, AccountRecord)? in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM api_tokens WHERE token_hash = ?", arguments: [hash]),
                let account = try Row.fetchOne(
                    db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [row["account_id"] as String])
            else { return nil }
            return (try Self.apiToken(row), try Self.account(account))
        }
        guard let (token, account) = found else { return nil }
        if token.revokedAt == nil, DeviceRecord.lastSeenIsStale(token.lastUsedAt, now: now) {
            try await writer.write { db in
                try db.execute(
                    sql: "UPDATE api_tokens SET last_used_at = ? WHERE id = ?",
                    arguments: [now.timeIntervalSince1970, token.id])
            }
        }
        return (token, account)
    }

    public func apiTokens(accountId: String?) async throws -> [APITokenRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM api_tokens WHERE ? IS NULL OR account_id = ? ORDER BY created_at, id",
                arguments: [accountId, accountId]
            ).map(Self.apiToken)
        }
    }

    public func apiToken(id: String) async throws -> APITokenRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_tokens WHERE id = ?", arguments: [id]).map(Self.apiToken)
        }
    }

    public func revokeAPIToken(id: String, now: Date, audit: LedgerEvent?) async throws -> APITokenRecord? {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                arguments: [now.timeIntervalSince1970, id])
            _ = try Self.audited(db.changesCount == 1, audit, db: db)
            return try Row.fetchOne(db, sql: "SELECT * FROM api_tokens WHERE id = ?", arguments: [id]).map(
                Self.apiToken)
        }
    }

    public func createConsoleSession(_ session: ConsoleSessionRecord, hash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO console_sessions (token_hash, account_id, csrf_token, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    hash, session.accountId, session.csrfToken, session.createdAt.timeIntervalSince1970,
                    session.expiresAt.timeIntervalSince1970,
                ])
            // Expired sessions are dropped as new ones are made, so the table stays small.
            try db.execute(
                sql: "DELETE FROM console_sessions WHERE expires_at <= ?",
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
                    db, sql: "SELECT * FROM console_sessions WHERE token_hash = ? AND expires_at > ?",
                    arguments: [hash, now.timeIntervalSince1970]),
                let account = try Row.fetchOne(
                    db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [row["account_id"] as String])
            else { return nil }
            let session = ConsoleSessionRecord(
                accountId: row["account_id"], csrfToken: row["csrf_token"],
                createdAt: Date(timeIntervalSince1970: row["created_at"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            return (session, try Self.account(account))
        }
    }

    public func deleteConsoleSession(hash: String, audit: LedgerEvent?) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE token_hash = ?", arguments: [hash])
            _ = try Self.audited(db.changesCount == 1, audit, db: db)
        }
    }

    public func deleteConsoleSessions(accountId: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE account_id = ?", arguments: [accountId])
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
            sites: AccountRecord.sites(row["sites"]), passwordHash: row["password_hash"],
            totpSecret: row["totp_secret"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            deactivatedAt: (row["deactivated_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    private static func apiToken(_ row: Row) throws -> APITokenRecord {
        APITokenRecord(
            id: row["id"], accountId: row["account_id"], name: row["name"],
            role: try StoredValue.decode(
                row["role"] as String, as: Role.self, table: "api_tokens", row: row["id"] as String, column: "role"),
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            lastUsedAt: (row["last_used_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

extension AccountRecord {
    /// The stored list of a manager's sites (comma-separated ids; ids have no commas).
    static func sites(_ text: String) -> [SiteID] { text.split(separator: ",").map { SiteID(String($0)) } }
}
