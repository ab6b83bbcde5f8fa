/// What a person who runs attendance may do, from most to least (docs/CONSOLE.md will describe
/// each once the console exists). The admin token acts as the owner.
public enum Role: String, CaseIterable, Comparable, Hashable, Sendable {
    /// Everything, accounts and sites included.
    case owner
    /// Every site: people, sessions and their corrections, requests, timesheets, pay periods,
    /// exports, the audit log.
    case hr
    /// Only the sites assigned to them: who is on site, sessions, requests to approve.
    case manager
    /// Reads everything an audit needs, changes nothing.
    case auditor

    /// Sorted from most to least: an API token may carry its account's role or a lesser one.
    private var rank: Int {
        switch self {
        case .owner: 0
        case .hr: 1
        case .manager: 2
        case .auditor: 3
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank > rhs.rank }

    /// Whether the role's permissions are limited to the sites assigned to the account.
    public var isSiteScoped: Bool { self == .manager }
}
