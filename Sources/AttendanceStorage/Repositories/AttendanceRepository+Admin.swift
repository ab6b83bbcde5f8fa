import AttendanceModels
import AttendanceRules
import Foundation

/// The administrators' side of storage.
public protocol AdminRepository: Sendable {
    /// Keeps a site survey; returns it with its id.
    func storeSurvey(_ survey: StoredSurvey) async throws -> StoredSurvey
    /// A site's newest surveys, newest first.
    func surveys(siteId: SiteID, limit: Int) async throws -> [StoredSurvey]
    func updateSite(_ site: SiteRecord, audit: LedgerEvent?) async throws -> Bool
    /// Marks the site deleted (kept for its sessions, refused for new check-ins); false when no
    /// site has this id. Deleting a deleted site keeps its first time.
    func deactivateSite(id: SiteID, now: Date, audit: LedgerEvent?) async throws -> Bool
    func createBeacon(_ beacon: BeaconRecord, audit: LedgerEvent?) async throws
    func beacons(siteId: SiteID?) async throws -> [BeaconRecord]
    func deleteBeacon(id: BeaconID, audit: LedgerEvent?) async throws -> Bool
    func employees() async throws -> [EmployeeRecord]
    /// Deactivates the employee and revokes every device of theirs, in one transaction; keeps a
    /// deactivation's first time. Nil when no employee has this id.
    func deactivateEmployee(id: UserID, now: Date, audit: LedgerEvent?) async throws -> DeactivatedEmployee?
    /// Active again, with its ledger row when it was inactive; nil when there is no such employee.
    func reactivateEmployee(id: UserID, audit: LedgerEvent?) async throws -> EmployeeRecord?
    /// The check-outs and heartbeats an employee's devices sent that no session of theirs took:
    /// waiting for a check-in, or kept because they could not apply. Oldest first.
    func pendingEvents(userId: UserID) async throws -> [PendingEventRecord]
    func updateEmployee(_ employee: EmployeeRecord, audit: LedgerEvent?) async throws -> Bool
    /// Sessions by check-in time then key, after `cursor`, at most `limit`.
    func sessions(_ filter: SessionFilter, after cursor: SessionCursor?, limit: Int) async throws -> [SessionRecord]
}
