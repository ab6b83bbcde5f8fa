/// One thing a role may do. Every admin operation of the API needs exactly one (the table is in
/// `Access/OperationPermissions.swift`); `AccessPolicy` says which roles hold it.
public enum Permission: String, CaseIterable, Hashable, Sendable {
    /// Who is on site now.
    case readPresence
    /// Sites, beacons, employees and devices.
    case readDirectory
    /// Create, change and delete sites and their beacons.
    case manageSites
    /// Add, edit and deactivate employees; enrollment codes; revoke devices.
    case managePeople
    /// Everything held about one person (right of access).
    case exportPersonalData
    /// Erase a person's personal data (irreversible).
    case erasePersonalData
    /// Sessions and their history.
    case readSessions
    /// Correct, add and void sessions.
    case correctSessions
    /// Employees' correction requests.
    case readRequests
    /// Approve or reject a request.
    case decideRequests
    /// The ledger's audit log.
    case readAudit
    /// Timesheets, exports, schedules, rules, holidays, leave and pay periods.
    case readTimesheets
    /// Change schedules, rules, holidays and leave.
    case manageTimesheetSettings
    /// The pay cycle; approve, lock and reopen pay periods.
    case managePayPeriods
    /// Accounts and their API tokens.
    case manageAccounts
}
