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
            [.readPresence, .readDirectory, .readSessions, .readRequests, .decideRequests]
        case .auditor:
            [.readPresence, .readDirectory, .readSessions, .readRequests, .readAudit, .readTimesheets]
        }
    }

    public static func allows(_ role: Role, _ permission: Permission) -> Bool {
        permissions(of: role).contains(permission)
    }
}
