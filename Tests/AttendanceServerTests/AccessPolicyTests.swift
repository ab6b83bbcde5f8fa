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
                == [.readPresence, .readDirectory, .readSessions, .readRequests, .decideRequests])
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

    @Test func rolesAreOrderedFromAuditorToOwner() {
        #expect(Role.allCases.sorted() == [.auditor, .manager, .hr, .owner])
        #expect(Role.hr < .owner)
        #expect(!(Role.owner < .auditor))
    }
}
