import AttendanceModels
import Foundation

/// A person who runs attendance: an HR admin, a site manager, an auditor, the owner. Accounts are
/// not employees: they sign in to the console and own API tokens (docs/CONSOLE.md).
public struct AccountRecord: Hashable, Sendable {
    public var id: AccountID
    /// Stored lowercased; unique.
    public var email: String
    public var role: Role
    /// The sites a manager sees; empty for the other roles (they see every site).
    public var sites: [SiteID]
    /// bcrypt.
    public var passwordHash: String
    /// The TOTP secret once a second factor is set up.
    public var totpSecret: String?
    public var createdAt: Date
    public var deactivatedAt: Date?
    /// The console's language the person chose (`en`, `de`); nil: their browser's.
    public var language: String?

    public init(
        id: AccountID, email: String, role: Role, sites: [SiteID], passwordHash: String, totpSecret: String? = nil,
        createdAt: Date, deactivatedAt: Date? = nil, language: String? = nil
    ) {
        self.id = id
        self.email = email
        self.role = role
        self.sites = sites
        self.passwordHash = passwordHash
        self.totpSecret = totpSecret
        self.createdAt = createdAt
        self.deactivatedAt = deactivatedAt
        self.language = language
    }

    public var isActive: Bool { deactivatedAt == nil }
    public var scope: SiteScope { role.isSiteScoped ? .only(Set(sites)) : .all }
}

/// A machine's credential: belongs to an account and acts with its own role, which the account's
/// role covers (`AccessPolicy.covers`). The token itself is shown once and stored hashed.
public struct APITokenRecord: Hashable, Sendable {
    public var id: APITokenID
    public var accountId: AccountID
    public var name: String
    public var role: Role
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    public init(
        id: APITokenID, accountId: AccountID, name: String, role: Role, createdAt: Date, lastUsedAt: Date? = nil,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.name = name
        self.role = role
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// A signed-in browser: the cookie holds a random token, the store its hash.
public struct ConsoleSessionRecord: Hashable, Sendable {
    public var accountId: AccountID
    /// Sent back in every state-changing form (the console's CSRF token).
    public var csrfToken: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(accountId: AccountID, csrfToken: String, createdAt: Date, expiresAt: Date) {
        self.accountId = accountId
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Which sites a caller may see.
public enum SiteScope: Hashable, Sendable {
    case all
    case only(Set<SiteID>)

    public func permits(_ site: SiteID) -> Bool {
        switch self {
        case .all: true
        case .only(let sites): sites.contains(site)
        }
    }

    /// Refuses (403) a site outside `scope`, with the same words wherever it is checked.
    public static func require(_ site: SiteID, in scope: SiteScope) throws {
        guard scope.permits(site) else {
            throw DomainError(
                .forbidden, "Forbidden", "site '\(site)' is not one of the sites assigned to this account")
        }
    }
}

/// A person or machine acting through an account: who the audit trail names, what role applies
/// and which sites they see.
public struct StaffIdentity: Hashable, Sendable {
    public enum Credential: Hashable, Sendable {
        /// A console sign-in.
        case consoleSession
        /// An API token (its id).
        case apiToken(APITokenID)
    }

    public var accountId: AccountID
    public var email: String
    public var role: Role
    public var scope: SiteScope
    public var credential: Credential

    public init(accountId: AccountID, email: String, role: Role, scope: SiteScope, credential: Credential) {
        self.accountId = accountId
        self.email = email
        self.role = role
        self.scope = scope
        self.credential = credential
    }
}

extension AccountRecord {
    /// The stored list of a manager's sites (comma-separated ids; ids have no commas).
    package static func sites(_ text: String) -> [SiteID] { text.split(separator: ",").map { SiteID(String($0)) } }

    /// The list as stored and audited.
    package static func text(_ sites: [SiteID]) -> String { sites.map(\.rawValue).joined(separator: ",") }
}
