/// Which role holds which permission: the one place that decides, for the API and (later) the
/// console alike. Pure.
public enum AccessPolicy {
    public static func permissions(of role: Role) -> Set<Permission> {
        switch role {
        case .owner:
            Set(Permission.allCases)
        case .hr:
            Set(Permission.allCases).subtracting([.manageSites, .erasePersonalData, .manageAccounts])
        case .manager:
            [.readPresence, .readSessions, .readRequests, .decideRequests]
        case .auditor:
            [.readPresence, .readDirectory, .readSessions, .readRequests, .readAudit, .readTimesheets]
        }
    }

    public static func allows(_ role: Role, _ permission: Permission) -> Bool {
        permissions(of: role).contains(permission)
    }

    /// Whether `role` may hand out `other` (an API token carries its account's role or one it
    /// covers): every permission of `other` is `role`'s, and a site-scoped role covers only
    /// site-scoped ones, so no token sees more sites than its account.
    public static func covers(_ role: Role, _ other: Role) -> Bool {
        permissions(of: other).isSubset(of: permissions(of: role)) && (!role.isSiteScoped || other.isSiteScoped)
    }

    /// The sites a token of `role` issued by `account` sees: the lesser of the two. A site-scoped
    /// role sees the account's sites only, whether the token's or the account's is the scoped one
    /// (a manager token from an HR account sees the account's sites, which HR has none of).
    public static func scope(of role: Role, issuedBy account: AccountRecord) -> SiteScope {
        role.isSiteScoped || account.role.isSiteScoped ? .only(Set(account.sites)) : .all
    }
}
