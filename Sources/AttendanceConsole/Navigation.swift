import AttendanceRules
import AttendanceServer

/// The console's menu: each page with the permission that shows it. A page not allowed to the
/// viewer's role is not in their menu (and refused if typed in).
enum Navigation {
    static let pages: [(id: String, title: String, path: String, permission: Permission?)] = [
        ("presence", "On site now", "/console/presence", .readPresence),
        ("overview", "Overview", "/console/overview", .readTimesheets),
        ("exceptions", "Exceptions", "/console/exceptions", .readSessions),
        ("sessions", "Sessions", "/console/sessions", .readSessions),
        ("timesheets", "Timesheets", "/console/timesheets", .readTimesheets),
        ("requests", "Requests", "/console/requests", .readRequests),
        ("people", "People", "/console/people", .readDirectory),
        ("devices", "Devices", "/console/devices", .readDirectory),
        ("sites", "Sites", "/console/sites", .readDirectory),
        ("settings", "Settings", "/console/settings", .manageTimesheetSettings),
        // Every account has this page: its own password, second factor and API tokens.
        ("accounts", "Accounts", "/console/accounts", nil),
        ("audit", "Audit log", "/console/audit", .readAudit),
    ]

    static func items(for viewer: Viewer, current: String) -> [[String: Any]] {
        pages.filter { $0.permission.map(viewer.may) ?? true }.map {
            ["id": $0.id, "title": viewer.t($0.title), "path": $0.path, "current": $0.id == current]
        }
    }
}
