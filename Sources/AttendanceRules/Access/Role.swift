/// What a person who runs attendance may do (docs/SERVER.md, "Roles and permissions"). The admin
/// token acts as the owner. Roles are not a ladder: an auditor reads the audit log and a manager
/// does not, a manager decides requests and an auditor does not (`AccessPolicy.covers`).
public enum Role: String, CaseIterable, Hashable, Sendable {
    /// Everything, accounts and sites included.
    case owner
    /// Every site: people, sessions and their corrections, requests, timesheets, pay periods,
    /// exports, the audit log.
    case hr
    /// Only the sites assigned to them: who is on site, sessions, requests to approve.
    case manager
    /// Reads everything an audit needs, changes nothing.
    case auditor

    /// Whether the role's permissions are limited to the sites assigned to the account.
    public var isSiteScoped: Bool { self == .manager }
}
