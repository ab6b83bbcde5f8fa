/// The permission each admin operation of the contract needs (`AccessPolicy` says which roles
/// hold it). An admin operation without an entry is refused: a new operation is closed until it
/// is listed here, and `OperationPermissionsTests` fails until it is.
public enum OperationPermissions {
    public static let table: [String: Permission] = [
        "getPresence": .readPresence,
        "listSites": .readDirectory, "getSite": .readDirectory, "listBeacons": .readDirectory,
        "listEmployees": .readDirectory, "getEmployee": .readDirectory, "listDevices": .readDirectory,
        "createSite": .manageSites, "updateSite": .manageSites, "deleteSite": .manageSites,
        "createBeacon": .manageSites, "deleteBeacon": .manageSites,
        "createEmployee": .managePeople, "updateEmployee": .managePeople, "deactivateEmployee": .managePeople,
        "createEnrollmentCode": .managePeople, "revokeDevice": .managePeople,
        "exportEmployee": .exportPersonalData,
        "eraseEmployee": .erasePersonalData,
        "listSessions": .readSessions, "getSession": .readSessions, "getSessionHistory": .readSessions,
        "addSession": .correctSessions, "correctSession": .correctSessions, "voidSession": .correctSessions,
        "listRequests": .readRequests,
        "approveRequest": .decideRequests, "rejectRequest": .decideRequests,
        "listAudit": .readAudit,
        "getLedgerCheckpoint": .readAudit, "getLedgerInclusionProof": .readAudit,
        "getLedgerConsistencyProof": .readAudit, "postLedgerCosignature": .readAudit,
        "listLedgerWitnesses": .readAudit,
        "listTimesheets": .readTimesheets, "listSchedules": .readTimesheets, "getSchedule": .readTimesheets,
        "listScheduleAssignments": .readTimesheets, "getTimesheetRules": .readTimesheets,
        "listHolidays": .readTimesheets, "listLeave": .readTimesheets, "listPayCycles": .readTimesheets,
        "listPayPeriods": .readTimesheets, "listPayPeriodExceptions": .readTimesheets,
        "saveSchedule": .manageTimesheetSettings, "deleteSchedule": .manageTimesheetSettings,
        "createScheduleAssignment": .manageTimesheetSettings, "deleteScheduleAssignment": .manageTimesheetSettings,
        "saveTimesheetRules": .manageTimesheetSettings, "saveHoliday": .manageTimesheetSettings,
        "deleteHoliday": .manageTimesheetSettings, "saveLeave": .manageTimesheetSettings,
        "deleteLeave": .manageTimesheetSettings,
        "savePayCycle": .managePayPeriods, "changePayPeriod": .managePayPeriods,
    ]

    /// Nil when `role` may call `operationID`; otherwise why not.
    public static func refusal(of operationID: String, to role: Role) -> String? {
        guard let permission = table[operationID] else {
            return "'\(operationID)' has no permission defined, so no role may call it"
        }
        guard AccessPolicy.allows(role, permission) else {
            return "the \(role.rawValue) role can't call '\(operationID)': it needs '\(permission.rawValue)'"
        }
        return nil
    }
}
