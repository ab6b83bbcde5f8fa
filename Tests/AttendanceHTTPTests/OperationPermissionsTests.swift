import AttendanceRules
import AttendanceServer
import Foundation
import Testing

@testable import AttendanceHTTP

/// Every operation of the contract is public, a device's, or needs one permission: an admin
/// operation added without one fails here (and is refused to every role until it has one).
@Suite struct OperationPermissionsTests {
    private func contractOperations() throws -> Set<String> {
        let text = String(decoding: try AttendanceHTTPServer.contract(), as: UTF8.self)
        let pattern = try Regex(#"operationId:\s*(\w+)"#)
        return Set(text.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) })
    }

    @Test func everyAdminOperationOfTheContractNeedsOnePermission() throws {
        let operations = try contractOperations()
        let admin = operations.subtracting(AuthMiddleware.publicOperations).subtracting(AuthMiddleware.deviceOperations)
        #expect(admin.count >= 50)
        let missing = admin.subtracting(OperationPermissions.table.keys)
        #expect(missing.isEmpty, "no permission for \(missing.sorted())")
        let unknown = Set(OperationPermissions.table.keys).subtracting(admin)
        #expect(unknown.isEmpty, "listed but not admin operations of the contract: \(unknown.sorted())")
    }

    @Test func theOwnerMayCallEveryAdminOperation() {
        for operation in OperationPermissions.table.keys {
            #expect(OperationPermissions.refusal(of: operation, to: .owner) == nil, "\(operation)")
        }
    }

    @Test func aRefusalNamesTheRoleTheOperationAndThePermissionItNeeds() {
        #expect(
            OperationPermissions.refusal(of: "correctSession", to: .auditor)
                == "the auditor role can't call 'correctSession': it needs 'correctSessions'")
        #expect(OperationPermissions.refusal(of: "createSite", to: .hr) != nil)
        #expect(OperationPermissions.refusal(of: "approveRequest", to: .manager) == nil)
        #expect(OperationPermissions.refusal(of: "listTimesheets", to: .manager) != nil)
        #expect(
            OperationPermissions.refusal(of: "someNewOperation", to: .owner)
                == "'someNewOperation' has no permission defined, so no role may call it")
    }
}
