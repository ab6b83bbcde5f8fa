import AttendanceModels
import AttendanceRules
import Foundation

public struct BeaconRecord: Hashable, Sendable {
    public var id: BeaconID
    public var siteId: SiteID
    public var minor: UInt16
    public var label: String?
    public var txPowerDBm: Double?

    public init(id: BeaconID, siteId: SiteID, minor: UInt16, label: String? = nil, txPowerDBm: Double? = nil) {
        self.id = id
        self.siteId = siteId
        self.minor = minor
        self.label = label
        self.txPowerDBm = txPowerDBm
    }
}

/// A check-out or heartbeat stored without its session, as an export shows it.
public struct PendingEventRecord: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var kind: SessionEventCommand.Kind
    public var at: Date
    public var reason: String?
    public var receivedAt: Date

    public init(sessionKey: SessionKey, kind: SessionEventCommand.Kind, at: Date, reason: String?, receivedAt: Date) {
        self.sessionKey = sessionKey
        self.kind = kind
        self.at = at
        self.reason = reason
        self.receivedAt = receivedAt
    }
}

/// Which sessions to list; all filters are optional.
public struct SessionFilter: Hashable, Sendable {
    public var userId: UserID?
    public var siteId: SiteID?
    /// Sessions still open, or closed at or after this time.
    public var from: Date?
    /// Sessions that began before this time.
    public var to: Date?
    /// Sessions checked in this way (automatic or manual).
    public var source: EventSource?
    /// Only sessions a person corrected, added or voided.
    public var correctedOnly: Bool
    /// Only sessions whose device clock was off by at least this many seconds, either way.
    public var minSkewSeconds: Double?
    /// Newest check-in first (the console); oldest first otherwise (the API's pages).
    public var newestFirst = false

    public init(
        userId: UserID? = nil, siteId: SiteID? = nil, from: Date? = nil, to: Date? = nil,
        source: EventSource? = nil, correctedOnly: Bool = false, minSkewSeconds: Double? = nil
    ) {
        self.userId = userId
        self.siteId = siteId
        self.from = from
        self.to = to
        self.source = source
        self.correctedOnly = correctedOnly
        self.minSkewSeconds = minSkewSeconds
    }
}

/// Keyset pagination: the last session of the previous page.
public struct SessionCursor: Hashable, Sendable {
    public var checkInAt: Date
    public var sessionKey: SessionKey

    /// Opaque to clients: base64url of "seconds|key".
    public var token: String {
        Data("\(checkInAt.timeIntervalSince1970)|\(sessionKey.rawValue)".utf8).base64URLEncoded
    }

    public init(checkInAt: Date, sessionKey: SessionKey) {
        self.checkInAt = checkInAt
        self.sessionKey = sessionKey
    }

    public init?(token: String) {
        guard let data = Data(base64URLEncoded: token) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]) else { return nil }
        self.init(checkInAt: Date(timeIntervalSince1970: seconds), sessionKey: SessionKey(String(parts[1])))
    }
}

/// The administrators' side of storage.
public protocol AdminRepository: Sendable {
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

/// An employee deactivated, with the sessions that were open and are now closed ("deactivated").
public struct DeactivatedEmployee: Sendable {
    public var employee: EmployeeRecord
    public var closedSessions: [SessionRecord]

    public init(employee: EmployeeRecord, closedSessions: [SessionRecord]) {
        self.employee = employee
        self.closedSessions = closedSessions
    }
}
