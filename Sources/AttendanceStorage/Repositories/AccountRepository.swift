import AttendanceModels
import AttendanceRules
import Foundation

/// Accounts, their API tokens and console sessions: part of every repository implementation.
/// Changes take their audit row and write it in the same transaction.
public protocol AccountRepository: Sendable {
    func accountCount() async throws -> Int
    /// Throws a conflict when the e-mail is taken.
    func createAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws
    func account(id: AccountID) async throws -> AccountRecord?
    func account(email: String) async throws -> AccountRecord?
    func accounts() async throws -> [AccountRecord]
    /// Writes every field of `account` over the stored one; false when there is none.
    func updateAccount(_ account: AccountRecord, audit: LedgerEvent?) async throws -> Bool
    /// A sign-in attempt for `email` from `address`: refused while either's failures say wait, else
    /// counted as a failure before the password is checked (`SignInThrottle.begin`), in one
    /// transaction that locks both keys, so the servers on one database count every attempt once.
    func beginSignIn(email: String, address: String, now: Date, policy: SignInThrottle.Policy) async throws
        -> SignInThrottle.Decision
    /// The attempt `beginSignIn` counted was right (`SignInThrottle.succeeded`).
    func signInSucceeded(email: String, address: String) async throws
    /// Records that the account's one-time code of `step` (a 30-second TOTP step) was used: false
    /// when that step or a later one was used already (a code signs in once, on any replica).
    func useOneTimeCodeStep(accountId: AccountID, step: Int64) async throws -> Bool
    /// Records that a console form (by the hash of what it sent) was sent: nil when this is its
    /// first send, else when it was first sent (a second send makes nothing again).
    func claimConsoleForm(hash: String, accountId: AccountID, now: Date) async throws -> Date?
    /// Forgets a claim whose action failed, so the corrected form can be sent.
    func releaseConsoleForm(hash: String) async throws
    /// Whether owner and hr accounts must have a second factor (the owner's choice).
    func totpRequired() async throws -> Bool
    func setTOTPRequired(_ required: Bool, audit: LedgerEvent) async throws

    func createAPIToken(_ token: APITokenRecord, hash: String, audit: LedgerEvent?) async throws
    /// The token with this hash and its account; `lastUsedAt` is moved to `now` when older than a
    /// minute (a machine's steady traffic costs no write).
    func apiToken(hash: String, now: Date) async throws -> (token: APITokenRecord, account: AccountRecord)?
    func apiTokens(accountId: AccountID?) async throws -> [APITokenRecord]
    func apiToken(id: APITokenID) async throws -> APITokenRecord?
    /// Nil when there is no such token; revoking a revoked token keeps its first time.
    func revokeAPIToken(id: APITokenID, now: Date, audit: LedgerEvent?) async throws -> APITokenRecord?

    func createConsoleSession(_ session: ConsoleSessionRecord, hash: String, audit: LedgerEvent?) async throws
    /// An unexpired session and its account.
    func consoleSession(
        hash: String, now: Date
    ) async throws -> (session: ConsoleSessionRecord, account: AccountRecord)?
    func deleteConsoleSession(hash: String, audit: LedgerEvent?) async throws
    /// Signs an account out everywhere (deactivation, a password change).
    func deleteConsoleSessions(accountId: AccountID) async throws
}
