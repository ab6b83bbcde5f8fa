import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// API tokens: issued to an account with its role or one it covers, shown once, listed with their
/// last use, revoked one at a time.
public struct APITokenService: Sendable {
    public let repository: any AccountRepository
    private let environment: ServerEnvironment

    /// Tokens start with this, so a request's token is looked up in one table.
    public static let prefix = "bat_"

    public init(repository: any AccountRepository, environment: ServerEnvironment) {
        self.repository = repository
        self.environment = environment
    }

    public func issue(
        accountId: AccountID, name: String, role: Role?, actor: LedgerActor
    ) async throws
        -> (record: APITokenRecord, token: String)
    {
        try InputRules.text("name", name, maxLength: 100, allowEmpty: false)
        guard let account = try await repository.account(id: accountId), account.isActive else {
            throw DomainError(.notFound, "Not found", "no active account with id '\(accountId)'")
        }
        let role = role ?? account.role
        guard AccessPolicy.covers(account.role, role) else {
            throw DomainError.field(
                "role", role.rawValue, expected: "the account's role (\(account.role.rawValue)) or one it covers",
                kind: .unprocessable)
        }
        if role.isSiteScoped, account.sites.isEmpty {
            throw DomainError.field(
                "role", role.rawValue,
                expected: "a role that sees every site: a \(role.rawValue) token sees its account's sites, "
                    + "and this account has none", kind: .unprocessable)
        }
        let token = Self.prefix + environment.newToken()
        let record = APITokenRecord(
            id: environment.newId("tok-", length: 12, lowercased: false), accountId: accountId, name: name, role: role,
            createdAt: environment.now())
        let audit = LedgerEvent.admin(
            .apiTokenIssued, target: record.id,
            changes: [
                "account": LedgerChange(before: nil, after: accountId.rawValue),
                "role": LedgerChange(before: nil, after: role.rawValue),
                "name": LedgerChange(before: nil, after: name),
            ],
            actor: actor, now: environment.now())
        try await repository.createAPIToken(record, hash: Tokens.hash(token), audit: audit)
        return (record, token)
    }

    /// Revokes a token; `by` may revoke its own account's tokens, an owner (`mayRevokeAny`) any.
    public func revoke(
        id: APITokenID, by accountId: AccountID?, mayRevokeAny: Bool, actor: LedgerActor
    ) async throws
        -> APITokenRecord
    {
        guard let token = try await repository.apiToken(id: id),
            mayRevokeAny || token.accountId == accountId
        else { throw DomainError(.notFound, "Not found", "no API token with id '\(id)' that this account may revoke") }
        let audit = LedgerEvent.admin(.apiTokenRevoked, target: id, changes: [:], actor: actor, now: environment.now())
        guard let revoked = try await repository.revokeAPIToken(id: id, now: environment.now(), audit: audit) else {
            throw DomainError(.notFound, "Not found", "no API token with id '\(id)'")
        }
        return revoked
    }

    /// The identity a bearer token of ours stands for, or nil when it is not one.
    public func identity(token: String) async throws -> StaffIdentity? {
        guard token.hasPrefix(Self.prefix),
            let (record, account) = try await repository.apiToken(hash: Tokens.hash(token), now: environment.now())
        else { return nil }
        if let revoked = record.revokedAt {
            throw DomainError(
                .unauthenticated, "Token revoked", "API token '\(record.id)' was revoked at \(RFC3339.format(revoked))")
        }
        guard account.isActive else {
            throw DomainError(
                .unauthenticated, "Account deactivated", "the account of API token '\(record.id)' was deactivated")
        }
        // A token never outranks its account as it is now: a demoted account's tokens are revoked at
        // their next use, so promoting the account again doesn't bring them back.
        guard AccessPolicy.covers(account.role, record.role) else {
            let audit = LedgerEvent.admin(
                .apiTokenRevoked, target: record.id,
                changes: [
                    "reason": LedgerChange(before: nil, after: "outranks its account (\(account.role.rawValue))")
                ],
                actor: .server, now: environment.now())
            _ = try await repository.revokeAPIToken(id: record.id, now: environment.now(), audit: audit)
            throw DomainError(
                .unauthenticated, "Token outranks its account",
                "API token '\(record.id)' has the \(record.role.rawValue) role, which its account "
                    + "(now \(account.role.rawValue)) no longer covers; it is revoked: issue a new one")
        }
        return StaffIdentity(
            accountId: account.id, email: account.email, role: record.role,
            scope: AccessPolicy.scope(of: record.role, issuedBy: account), credential: .apiToken(record.id))
    }
}
