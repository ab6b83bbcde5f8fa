import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func accountCount() async throws -> Int {
        try await database.read { try await $0.value("SELECT COUNT(*) FROM accounts", as: Int.self) ?? 0 }
    }

    public func createAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws {
        try await database.unique("an account with e-mail '\(account.email)' exists") {
            try await database.write { tx in
                try await tx.execute(
                    """
                    INSERT INTO accounts
                        (id, email, role, sites, password_hash, totp_secret, created_at, deactivated_at, language)
                    VALUES (\(account.id), \(account.email), \(account.role.rawValue),
                            \(AccountRecord.text(account.sites)), \(account.passwordHash), \(account.totpSecret),
                            \(account.createdAt), \(account.deactivatedAt), \(account.language))
                    """)
                try await tx.audited(true, audit)
            }
        }
    }

    public func account(id: AccountID) async throws -> AccountRecord? {
        try await database.read { try await AccountRows.accounts($0, where: "WHERE id = \(id)").first }
    }

    public func account(email: String) async throws -> AccountRecord? {
        try await database.read { try await AccountRows.accounts($0, where: "WHERE email = \(email)").first }
    }

    public func accounts() async throws -> [AccountRecord] {
        try await database.read { try await AccountRows.accounts($0, where: "") }
    }

    public func totpRequired() async throws -> Bool {
        try await database.read { tx in
            try await tx.value("SELECT totp_required FROM account_policy WHERE id = 1", as: Bool.self) ?? false
        }
    }

    public func setTOTPRequired(_ required: Bool, audit: LedgerEvent) async throws {
        try await database.write { tx in
            try await tx.execute("UPDATE account_policy SET totp_required = \(required) WHERE id = 1")
            try await tx.appendLedger(audit)
        }
    }

    public func beginSignIn(email: String, address: String, now: Date, policy: SignInThrottle.Policy) async throws
        -> SignInThrottle.Decision
    {
        let keys = SignInThrottle.Key.of(email: email, address: address)
        return try await database.write(locking: keys.map(\.name)) { tx in
            var throttle = SignInThrottle(policy: policy, entries: try await Self.signInFailures(keys, tx))
            let decision = throttle.begin(email: email, address: address, now: now)
            if decision == .allowed { try await Self.storeSignInFailures(keys, throttle, tx) }
            return decision
        }
    }

    public func signInSucceeded(email: String, address: String) async throws {
        let keys = SignInThrottle.Key.of(email: email, address: address)
        try await database.write(locking: keys.map(\.name)) { tx in
            var throttle = SignInThrottle(entries: try await Self.signInFailures(keys, tx))
            throttle.succeeded(email: email, address: address)
            try await Self.storeSignInFailures(keys, throttle, tx)
        }
    }

    private static func signInFailures(_ keys: [SignInThrottle.Key], _ tx: any SQLTransaction) async throws
        -> [SignInThrottle.Key: SignInThrottle.Entry]
    {
        let byName = Dictionary(keys.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = try await tx.query(
            """
            SELECT throttle_key, failures, last_failure FROM sign_in_failures
            WHERE throttle_key \(anyOf: keys.map(\.name))
            """)
        var entries: [SignInThrottle.Key: SignInThrottle.Entry] = [:]
        for row in rows {
            guard let key = byName[try row.decode(0, as: String.self)] else { continue }
            entries[key] = SignInThrottle.Entry(failures: try row.decode(1), lastFailure: try row.decode(2))
        }
        return entries
    }

    /// The keys' counts as `throttle` holds them: written, or deleted when it holds none.
    private static func storeSignInFailures(
        _ keys: [SignInThrottle.Key], _ throttle: SignInThrottle, _ tx: any SQLTransaction
    ) async throws {
        for key in keys {
            guard let entry = throttle.entries[key] else {
                try await tx.execute("DELETE FROM sign_in_failures WHERE throttle_key = \(key.name)")
                continue
            }
            try await tx.execute(
                """
                INSERT INTO sign_in_failures (throttle_key, failures, last_failure)
                VALUES (\(key.name), \(entry.failures), \(entry.lastFailure))
                ON CONFLICT (throttle_key)
                DO UPDATE SET failures = excluded.failures, last_failure = excluded.last_failure
                """)
        }
    }

    public func useOneTimeCodeStep(accountId: AccountID, step: Int64) async throws -> Bool {
        try await database.write { tx in
            try await tx.execute(
                """
                UPDATE accounts SET totp_last_step = \(step)
                WHERE id = \(accountId) AND (totp_last_step IS NULL OR totp_last_step < \(step))
                """) == 1
        }
    }

    public func claimConsoleForm(hash: String, accountId: AccountID, now: Date) async throws -> Date? {
        try await database.write { tx in
            let claimed = try await tx.execute(
                """
                INSERT INTO console_forms (form_hash, account_id, sent_at) VALUES (\(hash), \(accountId), \(now))
                ON CONFLICT (form_hash) DO NOTHING
                """)
            if claimed == 1 { return nil }
            // A claim given back between the two statements still refuses this send (it reloads).
            return try await tx.value("SELECT sent_at FROM console_forms WHERE form_hash = \(hash)", as: Date.self)
                ?? now
        }
    }

    public func releaseConsoleForm(hash: String) async throws {
        try await database.write { tx in
            _ = try await tx.execute("DELETE FROM console_forms WHERE form_hash = \(hash)")
        }
    }

    public func updateAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws -> Bool {
        try await database.write { tx in
            let changed = try await tx.execute(
                """
                UPDATE accounts SET email = \(account.email), role = \(account.role.rawValue),
                    sites = \(AccountRecord.text(account.sites)), password_hash = \(account.passwordHash),
                    totp_secret = \(account.totpSecret), created_at = \(account.createdAt),
                    deactivated_at = \(account.deactivatedAt), language = \(account.language)
                WHERE id = \(account.id)
                """)
            return try await tx.audited(changed == 1, audit)
        }
    }

    public func createAPIToken(_ token: APITokenRecord, hash: String, audit: LedgerEvent?) async throws {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO api_tokens (id, account_id, token_hash, name, role, created_at)
                VALUES (\(token.id), \(token.accountId), \(hash), \(token.name), \(token.role.rawValue),
                        \(token.createdAt))
                """)
            try await tx.audited(true, audit)
        }
    }

    public func apiToken(hash: String, now: Date) async throws -> (token: APITokenRecord, account: AccountRecord)? {
        let found = try await database.read { tx -> (APITokenRecord, AccountRecord)? in
            guard let token = try await AccountRows.tokens(tx, where: "WHERE token_hash = \(hash)").first,
                let account = try await AccountRows.accounts(tx, where: "WHERE id = \(token.accountId)").first
            else { return nil }
            return (token, account)
        }
        guard let (token, account) = found else { return nil }
        if token.revokedAt == nil, DeviceRecord.lastSeenIsStale(token.lastUsedAt, now: now) {
            try await database.write { tx in
                try await tx.execute("UPDATE api_tokens SET last_used_at = \(now) WHERE id = \(token.id)")
            }
        }
        return (token, account)
    }

    public func apiTokens(accountId: AccountID?) async throws -> [APITokenRecord] {
        try await database.read { tx in
            try await AccountRows.tokens(
                tx,
                where: accountId.map { "WHERE account_id = \($0) ORDER BY created_at, id" } ?? "ORDER BY created_at, id"
            )
        }
    }

    public func apiToken(id: APITokenID) async throws -> APITokenRecord? {
        try await database.read { try await AccountRows.tokens($0, where: "WHERE id = \(id)").first }
    }

    public func revokeAPIToken(id: APITokenID, now: Date, audit: LedgerEvent?) async throws -> APITokenRecord? {
        try await database.write { tx in
            let changed = try await tx.execute(
                "UPDATE api_tokens SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
            try await tx.audited(changed == 1, audit)
            return try await AccountRows.tokens(tx, where: "WHERE id = \(id)").first
        }
    }

    public func createConsoleSession(_ session: ConsoleSessionRecord, hash: String, audit: LedgerEvent?) async throws {
        try await database.write { tx in
            try await tx.execute(
                """
                INSERT INTO console_sessions (token_hash, account_id, csrf_token, created_at, expires_at)
                VALUES (\(hash), \(session.accountId), \(session.csrfToken), \(session.createdAt), \(session.expiresAt))
                """)
            // Expired sessions are dropped as new ones are made, so the table stays small.
            try await tx.execute("DELETE FROM console_sessions WHERE expires_at <= \(session.createdAt)")
            try await tx.audited(true, audit)
        }
    }

    public func consoleSession(
        hash: String, now: Date
    ) async throws -> (session: ConsoleSessionRecord, account: AccountRecord)? {
        try await database.read { tx in
            guard
                let row = try await tx.query(
                    """
                    SELECT account_id, csrf_token, created_at, expires_at FROM console_sessions
                    WHERE token_hash = \(hash) AND expires_at > \(now)
                    """
                ).first,
                let account = try await AccountRows.accounts(
                    tx, where: "WHERE id = \(try row.decode(0, as: String.self))"
                )
                .first
            else { return nil }
            let session = ConsoleSessionRecord(
                accountId: try row[0], csrfToken: try row[1], createdAt: try row[2], expiresAt: try row[3])
            return (session, account)
        }
    }

    public func deleteConsoleSession(hash: String, audit: LedgerEvent?) async throws {
        try await database.write { tx in
            let changed = try await tx.execute("DELETE FROM console_sessions WHERE token_hash = \(hash)")
            try await tx.audited(changed == 1, audit)
        }
    }

    public func deleteConsoleSessions(accountId: AccountID) async throws {
        try await database.write { tx in
            try await tx.execute("DELETE FROM console_sessions WHERE account_id = \(accountId)")
        }
    }
}

/// Account and API token rows, read the one way both databases return them.
package enum AccountRows {
    package static func accounts(_ tx: any SQLTransaction, where condition: SQL) async throws -> [AccountRecord] {
        try await tx.query(
            """
            SELECT id, email, role, sites, password_hash, totp_secret, created_at, deactivated_at, language
            FROM accounts \(condition) ORDER BY email
            """
        ).map { row in
            let id: AccountID = try row[0]
            return AccountRecord(
                id: id, email: try row[1],
                role: try StoredValue.decode(
                    try row[2] as String, as: Role.self, table: "accounts", row: id.rawValue, column: "role"),
                sites: AccountRecord.sites(try row[3]), passwordHash: try row[4], totpSecret: try row[5],
                createdAt: try row[6], deactivatedAt: try row[7], language: try row[8])
        }
    }

    package static func tokens(_ tx: any SQLTransaction, where condition: SQL) async throws -> [APITokenRecord] {
        try await tx.query(
            """
            SELECT id, account_id, name, role, created_at, last_used_at, revoked_at FROM api_tokens \(condition)
            """
        ).map { row in
            let id: APITokenID = try row[0]
            return APITokenRecord(
                id: id, accountId: try row[1], name: try row[2],
                role: try StoredValue.decode(
                    try row[3] as String, as: Role.self, table: "api_tokens", row: id.rawValue, column: "role"),
                createdAt: try row[4], lastUsedAt: try row[5], revokedAt: try row[6])
        }
    }
}
