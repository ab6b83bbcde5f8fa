import AttendanceRules
import AttendanceServer
import Testing

/// Which role holds which permission: the four roles, one case each.
@Suite struct AccessPolicyTests {
    @Test func theOwnerHoldsEveryPermission() {
        #expect(AccessPolicy.permissions(of: .owner) == Set(Permission.allCases))
    }

    @Test func hrRunsAttendanceOnEverySiteButNotSitesAccountsOrErasure() {
        let expected = Set(Permission.allCases).subtracting([.manageSites, .erasePersonalData, .manageAccounts])
        #expect(AccessPolicy.permissions(of: .hr) == expected)
        #expect(AccessPolicy.allows(.hr, .correctSessions))
        #expect(AccessPolicy.allows(.hr, .managePayPeriods))
        #expect(!AccessPolicy.allows(.hr, .manageAccounts))
    }

    @Test func aManagerSeesPresenceAndSessionsAndDecidesRequestsOnTheirSites() {
        #expect(
            AccessPolicy.permissions(of: .manager)
                == [.readPresence, .readSessions, .readRequests, .decideRequests])
        #expect(!AccessPolicy.allows(.manager, .correctSessions))
        #expect(!AccessPolicy.allows(.manager, .readTimesheets))
        #expect(Role.manager.isSiteScoped)
        #expect(Role.allCases.filter(\.isSiteScoped) == [.manager])
    }

    @Test func anAuditorReadsAndChangesNothing() {
        let auditor = AccessPolicy.permissions(of: .auditor)
        #expect(auditor == [.readPresence, .readDirectory, .readSessions, .readRequests, .readAudit, .readTimesheets])
        #expect(auditor.allSatisfy { $0.rawValue.hasPrefix("read") })
    }

    @Test func aRoleCoversOnlyRolesWhosePermissionsItHoldsAndNoWiderScope() {
        #expect(Role.allCases.allSatisfy { AccessPolicy.covers(.owner, $0) })
        #expect(AccessPolicy.covers(.hr, .manager))
        #expect(AccessPolicy.covers(.hr, .auditor))
        #expect(!AccessPolicy.covers(.hr, .owner))
        // Neither holds the other's permissions: a manager can't mint an auditor's token.
        #expect(!AccessPolicy.covers(.manager, .auditor))
        #expect(!AccessPolicy.covers(.auditor, .manager))
        #expect(Role.allCases.allSatisfy { AccessPolicy.covers($0, $0) })
    }
}
