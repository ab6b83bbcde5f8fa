import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import Synchronization

/// Console sign-in and sign-out: passwords checked with bcrypt, an optional TOTP code, failures
/// throttled per account and per address (`SignInThrottle`), and each outcome audited.
public final class SignInService: Sendable {
    public let accounts: AccountService
    /// How long a console sign-in lasts (absolute, not sliding).
    public let sessionLifetime: TimeInterval
    /// Failed sign-ins are counted in the database, so every server on it counts together.
    private let policy: SignInThrottle.Policy
    /// The key the throttle's account counts are stored under is a keyed hash of the typed e-mail
    /// (HMAC-SHA256 with a secret the servers on one database share): a typed address of no
    /// account, perhaps a password typed in the wrong field, is never stored as typed.
    private let throttleSecret = Mutex<[UInt8]?>(nil)
    private let environment: ServerEnvironment
    /// Compared against when the e-mail is unknown, so an unknown address takes as long as a wrong password.
    private let decoyHash: String

    public init(
        accounts: AccountService, policy: SignInThrottle.Policy = .init(), sessionLifetime: TimeInterval = 12 * 3_600,
        environment: ServerEnvironment
    ) {
        self.accounts = accounts
        self.sessionLifetime = sessionLifetime
        self.policy = policy
        self.environment = environment
        self.decoyHash = "$2b$\(String(format: "%02d", accounts.bcryptCost))$" + String(repeating: "a", count: 53)
    }

    private var repository: any AccountServiceStorage { accounts.repository }

    /// A signed-in browser: the cookie's value (shown once) and the session it stands for.
    public struct SignedIn: Sendable {
        public var cookieToken: String
        public var session: ConsoleSessionRecord
        public var account: AccountRecord
    }

    /// Signs in, or throws a problem a person can act on: 401 for a wrong e-mail, password or code
    /// (the same words for each, so the form does not tell which accounts exist), 429 with the
    /// time to wait when throttled.
    public func signIn(email: String, password: String, code: String?, address: String) async throws -> SignedIn {
        let now = environment.now()
        let key = email.trimmingCharacters(in: .whitespaces).lowercased()
        let counted = try await throttleKey(key)
        try await begin(counted, address: address, now: now)
        let account = try await repository.account(email: key)
        let passwordMatches = await AccountService.verify(password, hash: account?.passwordHash ?? decoyHash)
        guard let account, account.isActive, passwordMatches else {
            try await fail(key, account: account, address: address, now: now, why: "password")
        }
        if let secret = account.totpSecret {
            guard let code, !code.isEmpty else {
                throw DomainError(
                    .unauthenticated, "Code required", "this account needs the 6-digit code from its authenticator app")
            }
            guard let number = try? AccountRules.totpCode(code),
                let step = accounts.totpStep(secret: secret, code: number, at: now)
            else { try await fail(key, account: account, address: address, now: now, why: "code") }
            // A code signs in once: seen again (a replay, or a second replica) it is a failed attempt.
            guard try await repository.useOneTimeCodeStep(accountId: account.id, step: step) else {
                try await fail(key, account: account, address: address, now: now, why: "code used")
            }
        }
        try await repository.signInSucceeded(email: counted, address: address)
        let token = environment.newToken()
        let session = ConsoleSessionRecord(
            accountId: account.id, csrfToken: environment.newToken(), createdAt: now,
            expiresAt: now.addingTimeInterval(sessionLifetime))
        let audit = LedgerEvent.admin(
            .accountSignedIn, target: account.id, changes: ["address": LedgerChange(before: nil, after: address)],
            actor: .account(account.id), now: now)
        try await repository.createConsoleSession(session, hash: Tokens.hash(token), audit: audit)
        return SignedIn(cookieToken: token, session: session, account: account)
    }

    /// The signed-in account behind a cookie's value, or nil when it is unknown or expired.
    public func session(cookieToken: String) async throws -> (session: ConsoleSessionRecord, account: AccountRecord)? {
        guard let found = try await repository.consoleSession(hash: Tokens.hash(cookieToken), now: environment.now()),
            found.account.isActive
        else { return nil }
        return found
    }

    public func signOut(cookieToken: String, accountId: AccountID) async throws {
        let audit = LedgerEvent.admin(
            .accountSignedOut, target: accountId, changes: [:], actor: .account(accountId), now: environment.now())
        try await repository.deleteConsoleSession(hash: Tokens.hash(cookieToken), audit: audit)
    }

    /// Checks the account's current password before a change to the account (its password, its
    /// second factor), throttled like a sign-in.
    public func confirmPassword(_ password: String, of account: AccountRecord, address: String) async throws {
        let counted = try await throttleKey(account.email)
        try await begin(counted, address: address, now: environment.now())
        guard await AccountService.verify(password, hash: account.passwordHash) else {
            throw DomainError.field(
                "current", "not the current password", expected: "this account's current password", kind: .unprocessable
            )
        }
        try await repository.signInSucceeded(email: counted, address: address)
    }

    /// The account's key in the throttle's table: HMAC-SHA256 of the lower-case e-mail, hex.
    private func throttleKey(_ email: String) async throws -> String {
        let secret: [UInt8]
        if let known = throttleSecret.withLock({ $0 }) {
            secret = known
        } else {
            secret = Array(
                try await repository.sharedSecret(name: "sign-in-throttle", candidate: environment.newToken()).utf8)
            throttleSecret.withLock { $0 = secret }
        }
        let mac = HMACSHA256.authenticationCode(key: secret, message: Array(email.lowercased().utf8))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Counts the attempt before it is checked (`SignInThrottle.begin`), or refuses it (429).
    private func begin(_ email: String, address: String, now: Date) async throws {
        let decision = try await repository.beginSignIn(email: email, address: address, now: now, policy: policy)
        if case .wait(let until, let why) = decision {
            let seconds = Int(until.timeIntervalSince(now).rounded(.up))
            let which = if case .account = why { "this account" } else { "this address" }
            throw DomainError(
                .throttled, "Too many attempts", "too many failed sign-ins for \(which); try again in \(seconds) s",
                retryAfterSeconds: max(seconds, 1))
        }
    }

    private func fail(
        _ email: String, account: AccountRecord?, address: String, now: Date, why: String
    ) async throws -> Never {
        // The row names the account when there is one; a typed e-mail of no account is not kept
        // (it may be a password typed in the wrong field).
        let audit = LedgerEvent.admin(
            .accountSignInFailed, target: account?.id.rawValue ?? "unknown account",
            changes: [
                "address": LedgerChange(before: nil, after: address), "reason": LedgerChange(before: nil, after: why),
            ],
            actor: account.map { .account($0.id) } ?? .server, now: now)
        try await repository.appendLedger(audit)
        throw DomainError(.unauthenticated, "Sign-in failed", "the e-mail, password or code is not right")
    }
}
