import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository: AccountRepository {
    static let accountStatements = [
        """
        CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')), sites TEXT NOT NULL,
            password_hash TEXT NOT NULL, totp_secret TEXT, created_at DOUBLE PRECISION NOT NULL,
            deactivated_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE api_tokens (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
            token_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('owner', 'hr', 'manager', 'auditor')),
            created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION, revoked_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE console_sessions (token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
            csrf_token TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
        """,
        "CREATE INDEX console_sessions_by_account ON console_sessions (account_id)",
    ]

    private static let accountColumns = "id, email, role, sites, password_hash, totp_secret, created_at, deactivated_at"
    private static let tokenColumns = "id, account_id, name, role, created_at, last_used_at, revoked_at"
    private typealias AccountRow = (String, String, String, String, String, String?, Double, Double?)
    private typealias TokenRow = (String, String, String, String, Double, Double?, Double?)

    public func accountCount() async throws -> Int {
        for try await count in try await client.query("SELECT COUNT(*)::BIGINT FROM accounts", logger: logger).decode(
            Int.self)
        {
            return count
        }
        return 0
    }

    public func createAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws {
        do {
            try await audited(audit) { connection in
                try await connection.query(
                    """
                    INSERT INTO accounts
                        (id, email, role, sites, password_hash, totp_secret, created_at, deactivated_at)
                    VALUES (\(account.id), \(account.email), \(account.role.rawValue),
                            \(AccountService.text(account.sites)), \(account.passwordHash), \(account.totpSecret), \(account.createdAt.timeIntervalSince1970),
                            \(account.deactivatedAt?.timeIntervalSince1970))
                    """, logger: self.logger)
                return true
            }
        } catch  where Self.isUniqueViolation(error) {
            throw RepositoryError(kind: .conflict, detail: "an account with e-mail '\(account.email)' exists")
        }
    }

    public func account(id: String) async throws -> AccountRecord? {
        try await accounts(where: "id = $1", id).first
    }

    public func account(email: String) async throws -> AccountRecord? {
        try await accounts(where: "email = $1", email).first
    }

    public func accounts() async throws -> [AccountRecord] {
        try await accounts(where: nil, nil)
    }

    private func accounts(where condition: String?, _ value: String?) async throws -> [AccountRecord] {
        let sql =
            "SELECT \(Self.accountColumns) FROM accounts" + (condition.map { " WHERE \($0)" } ?? "") + " ORDER BY email"
        let query =
            try value.map { PostgresQuery(unsafeSQL: sql, binds: try binds($0)) } ?? PostgresQuery(unsafeSQL: sql)
        var found: [AccountRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(AccountRow.self) {
            found.append(try Self.account(row))
        }
        return found
    }

    public func updateAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws -> Bool {
        try await audited(audit) { connection in
            !(try await connection.query(
                """
                UPDATE accounts SET email = \(account.email), role = \(account.role.rawValue),
                    sites = \(AccountService.text(account.sites)), password_hash = \(account.passwordHash),
                    totp_secret = \(account.totpSecret),
                    deactivated_at = \(account.deactivatedAt?.timeIntervalSince1970)
                WHERE id = \(account.id) RETURNING 1
                """, logger: self.logger
            ).collect()).isEmpty
        }
    }

    public func createAPIToken(_ token: APITokenRecord, hash: String, audit: LedgerEvent?) async throws {
        try await audited(audit) { connection in
            try await connection.query(
                """
                INSERT INTO api_tokens (id, account_id, token_hash, name, role, created_at)
                VALUES (\(token.id), \(token.accountId), \(hash), \(token.name), \(token.role.rawValue),
                        \(token.createdAt.timeIntervalSince1970))
                """, logger: self.logger)
            return true
        }
    }

    public func apiToken(hash: String, now: Date) async throws -> (token: APITokenRecord, account: AccountRecord)? {
        let sql = "SELECT \(Self.tokenColumns) FROM api_tokens WHERE token_hash = $1"
        var token: APITokenRecord?
        for try await row in try await client.query(
            PostgresQuery(unsafeSQL: sql, binds: try binds(hash)), logger: logger
        )
        .decode(TokenRow.self) { token = try Self.token(row) }
        guard let token, let account = try await account(id: token.accountId) else { return nil }
        if token.revokedAt == nil, DeviceRecord.lastSeenIsStale(token.lastUsedAt, now: now) {
            try await client.query(
                "UPDATE api_tokens SET last_used_at = \(now.timeIntervalSince1970) WHERE id = \(token.id)",
                logger: logger)
        }
        return (token, account)
    }

    public func apiTokens(accountId: String?) async throws -> [APITokenRecord] {
        let sql =
            "SELECT \(Self.tokenColumns) FROM api_tokens" + (accountId == nil ? "" : " WHERE account_id = $1")
            + " ORDER BY created_at, id"
        let query =
            try accountId.map { PostgresQuery(unsafeSQL: sql, binds: try binds($0)) } ?? PostgresQuery(unsafeSQL: sql)
        var found: [APITokenRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(TokenRow.self) {
            found.append(try Self.token(row))
        }
        return found
    }

    public func apiToken(id: String) async throws -> APITokenRecord? {
        let sql = "SELECT \(Self.tokenColumns) FROM api_tokens WHERE id = $1"
        for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: try binds(id)), logger: logger)
            .decode(TokenRow.self)
        { return try Self.token(row) }
        return nil
    }

    public func revokeAPIToken(id: String, now: Date, audit: LedgerEvent?) async throws -> APITokenRecord? {
        try await audited(audit) { connection in
            !(try await connection.query(
                """
                UPDATE api_tokens SET revoked_at = \(now.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL
                RETURNING 1
                """, logger: self.logger
            ).collect()).isEmpty
        }
        return try await apiToken(id: id)
    }

    public func createConsoleSession(_ session: ConsoleSessionRecord, hash: String, audit: LedgerEvent?) async throws {
        try await audited(audit) { connection in
            try await connection.query(
                """
                INSERT INTO console_sessions (token_hash, account_id, csrf_token, created_at, expires_at)
                VALUES (\(hash), \(session.accountId), \(session.csrfToken), \(session.createdAt.timeIntervalSince1970),
                        \(session.expiresAt.timeIntervalSince1970))
                """, logger: self.logger)
            try await connection.query(
                "DELETE FROM console_sessions WHERE expires_at <= \(session.createdAt.timeIntervalSince1970)",
                logger: self.logger)
            return true
        }
    }

    public func consoleSession(
        hash: String, now: Date
    ) async throws -> (session: ConsoleSessionRecord, account: AccountRecord)? {
        let rows = try await client.query(
            """
            SELECT account_id, csrf_token, created_at, expires_at FROM console_sessions
            WHERE token_hash = \(hash) AND expires_at > \(now.timeIntervalSince1970)
            """, logger: logger)
        var session: ConsoleSessionRecord?
        for try await (account, csrf, created, expires) in rows.decode((String, String, Double, Double).self) {
            session = ConsoleSessionRecord(
                accountId: account, csrfToken: csrf, createdAt: Date(timeIntervalSince1970: created),
                expiresAt: Date(timeIntervalSince1970: expires))
        }
        guard let session, let account = try await account(id: session.accountId) else { return nil }
        return (session, account)
    }

    public func deleteConsoleSession(hash: String, audit: LedgerEvent?) async throws {
        try await audited(audit) { connection in
            !(try await connection.query(
                "DELETE FROM console_sessions WHERE token_hash = \(hash) RETURNING 1", logger: self.logger
            )
            .collect()).isEmpty
        }
    }

    public func deleteConsoleSessions(accountId: String) async throws {
        try await client.query("DELETE FROM console_sessions WHERE account_id = \(accountId)", logger: logger)
    }

    private static func account(_ row: AccountRow) throws -> AccountRecord {
        AccountRecord(
            id: row.0, email: row.1,
            role: try StoredValue.decode(row.2, as: Role.self, table: "accounts", row: row.0, column: "role"),
            sites: AccountRecord.sites(row.3),
            passwordHash: row.4, totpSecret: row.5, createdAt: Date(timeIntervalSince1970: row.6),
            deactivatedAt: row.7.map(Date.init(timeIntervalSince1970:)))
    }

    private static func token(_ row: TokenRow) throws -> APITokenRecord {
        APITokenRecord(
            id: row.0, accountId: row.1, name: row.2,
            role: try StoredValue.decode(row.3, as: Role.self, table: "api_tokens", row: row.0, column: "role"),
            createdAt: Date(timeIntervalSince1970: row.4), lastUsedAt: row.5.map(Date.init(timeIntervalSince1970:)),
            revokedAt: row.6.map(Date.init(timeIntervalSince1970:)))
    }
}
