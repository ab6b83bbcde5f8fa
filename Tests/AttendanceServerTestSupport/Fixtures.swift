import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation

/// Directory writes that record no ledger row: test fixtures, where no
/// admin acted. Everything an admin does goes through `AdminService`, which records it.
extension AttendanceRepository {
    public func createSite(_ site: SiteRecord) async throws { try await createSite(site, audit: nil) }
    public func createEmployee(_ employee: EmployeeRecord) async throws {
        try await createEmployee(employee, audit: nil)
    }
}
