import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `AdminService` reads and writes: the repository protocols it needs, no more.
public typealias AdminServiceStorage = AttendanceRepository & AdminRepository & AuthRepository
    & LedgerRepository & RequestRepository

/// The administrators' operations, validated: every refusal is a `Problem` naming the field, the
/// value and what was expected. HTTP-agnostic; the HTTP layer maps records to the contract's types.
public struct AdminService: Sendable {
    public let repository: any AdminServiceStorage
    let environment: ServerEnvironment

    /// Told about the sessions a deactivation closed (the live "on site now" pages).
    private let observer: (any SessionObserver)?

    public init(
        repository: any AdminServiceStorage, observer: (any SessionObserver)? = nil, environment: ServerEnvironment
    ) {
        self.repository = repository
        self.observer = observer
        self.environment = environment
    }

    public struct SiteInput: Hashable, Sendable {
        public var name: String
        public var timeZone: String
        public var beaconUUID: String
        public var major: Int
        public var geofence: Geofence?

        public init(name: String, timeZone: String, beaconUUID: String, major: Int, geofence: Geofence? = nil) {
            self.name = name
            self.timeZone = timeZone
            self.beaconUUID = beaconUUID
            self.major = major
            self.geofence = geofence
        }
    }

    // MARK: Sites

    /// `idempotencyKey`: the caller's key for this create; a retry with it creates nothing and
    /// answers the site the first one created, as it is now.
    public func createSite(_ input: SiteInput, actor: LedgerActor = .adminToken, idempotencyKey: String? = nil)
        async throws -> SiteRecord
    {
        let id = try RetryKey.id("site-", idempotencyKey, actor: actor).map { SiteID($0) }
        if let id, let earlier = try await repository.site(id: id) { return earlier }
        let site = try validated(input, id: id ?? environment.newId("site-", length: 10))
        let audit = audit(
            .siteCreated, target: site.id.rawValue, before: [:], after: Self.fields(site), actor: actor)
        do { try await repository.createSite(site, audit: audit) } catch let error as RepositoryError {
            // A retry that ran beside the first: the first one's site.
            if let id, let earlier = try await repository.site(id: id) { return earlier }
            throw DomainError(.conflict, "Conflict", error.detail)
        }
        return site
    }

    public func updateSite(id: SiteID, _ input: SiteInput, actor: LedgerActor = .adminToken) async throws -> SiteRecord
    {
        var site = try validated(input, id: id)
        let before = try await repository.site(id: id)
        site.deactivatedAt = before?.deactivatedAt
        let audit = audit(
            .siteUpdated, target: id.rawValue, before: before.map(Self.fields) ?? [:], after: Self.fields(site),
            actor: actor)
        do {
            guard try await repository.updateSite(site, audit: audit) else { throw Self.notFound("site", id.rawValue) }
        } catch let error as RepositoryError {
            throw DomainError(.conflict, "Conflict", error.detail)
        }
        return site
    }

    /// An admin action's ledger row: what changed, field by field. The repository writes it in the
    /// change's own transaction, when the change happens.
    func audit(
        _ kind: LedgerKind, target: String, userId: UserID? = nil, before: [String: String?], after: [String: String?],
        actor: LedgerActor, now: Date? = nil
    ) -> LedgerEvent {
        LedgerEvent.admin(
            kind, target: target, userId: userId, changes: LedgerChange.diff(before, after), actor: actor,
            now: now ?? environment.now())
    }

    static func fields(_ site: SiteRecord) -> [String: String?] {
        [
            "name": site.name, "timeZone": site.timeZone, "beaconUUID": site.beacon.uuid.uuidString,
            "major": String(site.beacon.major),
            "geofence": site.geofence.map {
                "\($0.latitude),\($0.longitude) r=\($0.radiusMeters) m"
            },
            "deactivatedAt": site.deactivatedAt.map(RFC3339.format),
        ]
    }

    static func fields(_ employee: EmployeeRecord) -> [String: String?] {
        [
            "name": employee.name, "externalId": employee.externalId, "email": employee.email,
            "deactivatedAt": employee.deactivatedAt.map(RFC3339.format),
        ]
    }

    public func site(id: SiteID) async throws -> SiteRecord {
        guard let site = try await repository.site(id: id) else { throw Self.notFound("site", id.rawValue) }
        return site
    }

    /// Deletes a site by deactivating it: it stays, with its sessions, and is shown as deleted;
    /// devices stop hearing of it, and its new check-ins are refused (422). No check-in can race
    /// a deletion into a 500.
    public func deleteSite(id: SiteID, actor: LedgerActor = .adminToken) async throws {
        let now = environment.now()
        let audit = audit(
            .siteDeleted, target: id.rawValue, before: ["deactivatedAt": nil],
            after: ["deactivatedAt": RFC3339.format(now)], actor: actor, now: now)
        guard try await repository.deactivateSite(id: id, now: now, audit: audit) else {
            throw Self.notFound("site", id.rawValue)
        }
    }

    private func validated(_ input: SiteInput, id: SiteID) throws -> SiteRecord {
        try InputRules.text("name", input.name, maxLength: InputRules.maxNameLength, allowEmpty: false)
        try InputRules.text("timeZone", input.timeZone, maxLength: 64)
        let name = input.name.trimmingCharacters(in: .whitespaces)
        guard TimeZone(identifier: input.timeZone) != nil else {
            throw DomainError.field(
                "timeZone", input.timeZone, expected: "an IANA time zone such as Europe/Berlin or America/New_York",
                kind: .unprocessable)
        }
        guard let uuid = UUID(uuidString: input.beaconUUID) else {
            throw DomainError.field(
                "beaconUUID", input.beaconUUID, expected: "a UUID such as \(SiteBeacon.defaultUUID.uuidString)")
        }
        guard (0...65_535).contains(input.major) else {
            throw DomainError.field("major", String(input.major), expected: "an integer from 0 to 65535")
        }
        if let fence = input.geofence {
            guard (-90...90).contains(fence.latitude) else {
                throw DomainError.field("geofence.latitude", "\(fence.latitude)", expected: "-90 to 90")
            }
            guard (-180...180).contains(fence.longitude) else {
                throw DomainError.field("geofence.longitude", "\(fence.longitude)", expected: "-180 to 180")
            }
            guard (50...5_000).contains(fence.radiusMeters) else {
                throw DomainError.field(
                    "geofence.radiusMeters", "\(fence.radiusMeters)",
                    expected: "50 to 5000 metres (iOS reports smaller circles unreliably)")
            }
        }
        return SiteRecord(
            id: id, name: name, timeZone: input.timeZone, beacon: SiteBeacon(uuid: uuid, major: UInt16(input.major)),
            geofence: input.geofence)
    }

    // MARK: Beacons

    /// `idempotencyKey`: as `createSite`'s (a retry answers the beacon the first one created).
    public func createBeacon(
        siteId: SiteID, minor: Int, label: String?, txPowerDBm: Double?, actor: LedgerActor = .adminToken,
        idempotencyKey: String? = nil
    ) async throws -> BeaconRecord {
        _ = try await site(id: siteId)
        let id = try RetryKey.id("beacon-", idempotencyKey, actor: actor).map { BeaconID($0) }
        func earlier() async throws -> BeaconRecord? {
            guard let id else { return nil }
            return try await repository.beacons(siteId: siteId).first { $0.id == id }
        }
        if let earlier = try await earlier() { return earlier }
        if let label { try InputRules.text("label", label, maxLength: InputRules.maxNameLength) }
        guard (0...65_535).contains(minor) else {
            throw DomainError.field("minor", String(minor), expected: "an integer from 0 to 65535")
        }
        if let power = txPowerDBm, !(-127...0).contains(power) {
            throw DomainError.field(
                "txPowerDBm", "\(power)", expected: "the measured power at 1 m, from -127 to 0 dBm (typically -59)")
        }
        let beacon = BeaconRecord(
            id: id ?? environment.newId("beacon-", length: 10), siteId: siteId, minor: UInt16(minor),
            label: label, txPowerDBm: txPowerDBm)
        let audit = audit(
            .beaconCreated, target: beacon.id.rawValue, before: [:], after: Self.fields(beacon), actor: actor)
        do { try await repository.createBeacon(beacon, audit: audit) } catch let error as RepositoryError {
            // A retry that ran beside the first: the first one's beacon.
            if let earlier = try await earlier() { return earlier }
            throw DomainError(.conflict, "Conflict", error.detail)
        }
        return beacon
    }

    static func fields(_ beacon: BeaconRecord) -> [String: String?] {
        [
            "siteId": beacon.siteId.rawValue, "minor": String(beacon.minor), "label": beacon.label,
            "txPowerDBm": beacon.txPowerDBm.map { "\($0)" },
        ]
    }

    public func beacons(siteId: SiteID) async throws -> [BeaconRecord] {
        _ = try await site(id: siteId)
        return try await repository.beacons(siteId: siteId)
    }

    public func deleteBeacon(id: BeaconID, actor: LedgerActor = .adminToken) async throws {
        let before = try await repository.beacons(siteId: nil).first { $0.id == id }
        let audit = audit(
            .beaconDeleted, target: id.rawValue, before: before.map(Self.fields) ?? [:], after: [:], actor: actor)
        guard try await repository.deleteBeacon(id: id, audit: audit) else {
            throw Self.notFound("beacon", id.rawValue)
        }
    }

    // MARK: Employees

    /// `idempotencyKey`: as for `createSite`.
    public func createEmployee(
        name: String, externalId: String?, email: String?, actor: LedgerActor = .adminToken,
        idempotencyKey: String? = nil
    ) async throws -> EmployeeRecord {
        let id = try RetryKey.id("user-", idempotencyKey, actor: actor).map { UserID($0) }
        if let id, let earlier = try await repository.employee(id: id) { return earlier }
        let employee = try validatedEmployee(
            id: id ?? environment.newId("user-", length: 10), name: name,
            externalId: externalId, email: email)
        let audit = audit(
            .employeeCreated, target: employee.id.rawValue, userId: employee.id, before: [:],
            after: Self.fields(employee), actor: actor)
        do { try await repository.createEmployee(employee, audit: audit) } catch let error as RepositoryError {
            if let id, let earlier = try await repository.employee(id: id) { return earlier }
            throw DomainError(.conflict, "Conflict", error.detail)
        }
        return employee
    }

    public func updateEmployee(
        id: UserID, name: String, externalId: String?, email: String?, actor: LedgerActor = .adminToken
    ) async throws -> EmployeeRecord {
        let employee = try validatedEmployee(id: id, name: name, externalId: externalId, email: email)
        let before = try await repository.employee(id: id)
        var after = employee
        after.deactivatedAt = before?.deactivatedAt
        let audit = audit(
            .employeeUpdated, target: id.rawValue, userId: id, before: before.map(Self.fields) ?? [:],
            after: Self.fields(after), actor: actor)
        do {
            guard try await repository.updateEmployee(employee, audit: audit) else {
                throw Self.notFound("employee", id.rawValue)
            }
        } catch let error as RepositoryError {
            throw DomainError(.conflict, "Conflict", error.detail)
        }
        return try await repository.employee(id: id) ?? after
    }

    /// Pseudonymises a deactivated employee (their right to erasure, once the employer's legal
    /// retention of working-time records has passed): the hours stay, the person goes.
    public func eraseEmployee(id: UserID, actor: LedgerActor = .adminToken) async throws -> EmployeeRecord {
        try InputRules.identifier("userId", id.rawValue, maxLength: InputRules.maxIdLength)
        let pseudonym = Self.erasedName(id)
        guard
            let employee = try await repository.eraseEmployee(
                id: id, pseudonym: pseudonym, actor: actor, now: environment.now())
        else { throw Self.notFound("employee", id.rawValue) }
        guard !employee.isActive else {
            throw DomainError(
                .conflict, "Conflict",
                "the employee '\(id)' is active; deactivate them first (POST /v1/admin/employees/\(id)/deactivate)")
        }
        return employee
    }

    /// Deactivates an employee: every device of theirs is revoked (refused from its next request),
    /// their sessions and records are kept, and new check-ins and enrollment codes for them are
    /// refused (422). Deactivating again changes nothing.
    public func deactivateEmployee(id: UserID, actor: LedgerActor = .adminToken) async throws
        -> EmployeeRecord
    {
        let now = environment.now()
        let audit = audit(
            .employeeDeactivated, target: id.rawValue, userId: id, before: ["deactivatedAt": nil],
            after: ["deactivatedAt": RFC3339.format(now)], actor: actor, now: now)
        guard let deactivated = try await repository.deactivateEmployee(id: id, now: now, audit: audit) else {
            throw Self.notFound("employee", id.rawValue)
        }
        if !deactivated.closedSessions.isEmpty { observer?.sessionsChanged(deactivated.closedSessions) }
        return deactivated.employee
    }

    /// Makes a deactivated employee active again (their phones enroll again). An erased employee
    /// stays erased: their name and e-mail are gone, and the record is kept only for the ledger.
    public func reactivateEmployee(id: UserID, actor: LedgerActor = .adminToken) async throws -> EmployeeRecord {
        let employee = try await self.employee(id: id)
        guard employee.name != Self.erasedName(id) else {
            throw DomainError(
                .conflict, "Erased", "employee '\(id)' was erased; add them again as a new person if they return")
        }
        let now = environment.now()
        let audit = audit(
            .employeeReactivated, target: id.rawValue, userId: id,
            before: ["deactivatedAt": employee.deactivatedAt.map(RFC3339.format)], after: ["deactivatedAt": nil],
            actor: actor, now: now)
        guard let active = try await repository.reactivateEmployee(id: id, audit: audit) else {
            throw Self.notFound("employee", id.rawValue)
        }
        return active
    }

    /// The name an erased employee keeps.
    public static func erasedName(_ id: UserID) -> String { "Erased employee \(id.rawValue)" }

    /// Revokes a device (refused from its next request).
    public func revokeDevice(id: DeviceID, actor: LedgerActor = .adminToken) async throws
        -> DeviceRecord
    {
        let now = environment.now()
        let owner = try await repository.devices(userId: nil).first { $0.id == id }?.userId
        let audit = audit(
            .deviceRevoked, target: id.rawValue, userId: owner, before: ["revokedAt": nil],
            after: ["revokedAt": RFC3339.format(now)], actor: actor, now: now)
        guard let device = try await repository.revokeDevice(id: id, now: now, audit: audit) else {
            throw Self.notFound("device", id.rawValue)
        }
        return device
    }

    /// Everything held about one person (their right of access): the employee, their devices,
    /// every session of theirs, the events their devices sent that no session took, their
    /// requests, and every ledger row about them (oldest first).
    public struct PersonalData: Sendable {
        /// When the export was made (the server's clock).
        public var exportedAt: Date
        public var employee: EmployeeRecord
        public var devices: [DeviceRecord]
        public var sessions: [SessionRecord]
        public var pendingEvents: [PendingEventRecord]
        public var requests: [CorrectionRequestRecord]
        public var ledger: [LedgerEvent]
    }

    public func personalData(id: UserID) async throws -> PersonalData {
        let employee = try await employee(id: id)
        var sessions: [SessionRecord] = []
        var cursor: SessionCursor?
        repeat {
            let page = try await repository.sessions(SessionFilter(userId: id), after: cursor, limit: 500)
            sessions += page
            cursor =
                page.count == 500
                ? page.last.map { SessionCursor(checkInAt: $0.checkInAt, sessionKey: $0.sessionKey) } : nil
        } while cursor != nil
        var ledger: [LedgerEvent] = []
        var before: Int64?
        repeat {
            let page = try await repository.ledgerEvents(LedgerFilter(userId: id), before: before, limit: 500)
            ledger += page
            before = page.count == 500 ? page.last?.id : nil
        } while before != nil
        return PersonalData(
            exportedAt: environment.now(), employee: employee, devices: try await repository.devices(userId: id),
            sessions: sessions,
            pendingEvents: try await repository.pendingEvents(userId: id),
            requests: try await repository.requests(userId: id, state: nil), ledger: ledger.reversed())
    }

    public func employee(id: UserID) async throws -> EmployeeRecord {
        guard let employee = try await repository.employee(id: id) else { throw Self.notFound("employee", id.rawValue) }
        return employee
    }

    private func validatedEmployee(id: UserID, name: String, externalId: String?, email: String?) throws
        -> EmployeeRecord
    {
        try EmployeeRules.validated(id: id, name: name, externalId: externalId, email: email)
    }

    // MARK: Sessions and presence

    /// A page of sessions. Query parameters arrive as text and are validated here.
    public func sessions(
        userId: String?, siteId: String?, from: String?, to: String?, limit: Int?, cursor: String?,
        source: EventSource? = nil, correctedOnly: Bool = false, minSkewSeconds: Double? = nil,
        newestFirst: Bool = false, in store: (any AdminServiceStorage)? = nil
    )
        async throws -> (items: [SessionRecord], nextCursor: String?)
    {
        let pageSize = limit ?? 100
        guard (1...500).contains(pageSize) else {
            throw DomainError.field("limit", String(pageSize), expected: "1 to 500")
        }
        var after: SessionCursor?
        if let cursor {
            guard cursor.range(of: "^[A-Za-z0-9_-]{1,400}$", options: .regularExpression) != nil else {
                throw DomainError.field(
                    "cursor", InputRules.shown(cursor), expected: "the nextCursor of a previous page (A-Z a-z 0-9 _ -)")
            }
            guard let decoded = SessionCursor(token: cursor),
                (try? InputRules.identifier("cursor", decoded.sessionKey.rawValue)) != nil
            else {
                throw DomainError.field(
                    "cursor", cursor, expected: "the nextCursor of a previous page", kind: .unprocessable)
            }
            after = decoded
        }
        var filter = try sessionFilter(
            userId: userId, siteId: siteId, from: from, to: to, source: source,
            correctedOnly: correctedOnly, minSkewSeconds: minSkewSeconds)
        filter.newestFirst = newestFirst
        let items = try await (store ?? repository).sessions(filter, after: after, limit: pageSize + 1)
        let page = Array(items.prefix(pageSize))
        let next =
            items.count > pageSize
            ? page.last.map { SessionCursor(checkInAt: $0.checkInAt, sessionKey: $0.sessionKey).token } : nil
        return (page, next)
    }

    /// The session list's filter from the query, each refusal naming its parameter (the list and
    /// its CSV export share it).
    public func sessionFilter(
        userId: String?, siteId: String?, from: String?, to: String?, source: EventSource? = nil,
        correctedOnly: Bool = false, minSkewSeconds: Double? = nil
    ) throws -> SessionFilter {
        if let skew = minSkewSeconds, !(0...31_536_000).contains(skew) {
            throw DomainError.field("minSkewSeconds", "\(skew)", expected: "0 to 31536000 seconds")
        }
        func time(_ name: String, _ text: String?) throws -> Date? {
            guard let text else { return nil }
            do { return try RFC3339.parse(text) } catch {
                throw DomainError.field(
                    name, text, expected: "an RFC 3339 time such as 2026-11-22T00:00:00Z (\(error.reason))")
            }
        }
        if let userId { try InputRules.identifier("userId", userId, maxLength: InputRules.maxIdLength) }
        if let siteId { try InputRules.identifier("siteId", siteId, maxLength: InputRules.maxIdLength) }
        let filter = SessionFilter(
            userId: userId.map { UserID($0) }, siteId: siteId.map { SiteID($0) },
            from: try time("from", from), to: try time("to", to), source: source,
            correctedOnly: correctedOnly, minSkewSeconds: minSkewSeconds)
        if let from = filter.from, let to = filter.to, from > to {
            throw DomainError.field("from", RFC3339.format(from), expected: "a time before 'to'", kind: .unprocessable)
        }
        return filter
    }

    public struct PresenceEntry: Hashable, Sendable {
        public var session: SessionRecord
        public var name: String?
    }

    /// Who is on site now: open sessions, with the employee's name.
    public func presence(siteId: String?, scope: SiteScope = .all) async throws -> [PresenceEntry] {
        if let siteId {
            try InputRules.identifier("siteId", siteId, maxLength: InputRules.maxIdLength)
            try SiteScope.require(SiteID(siteId), in: scope)
        }
        let open = try await repository.openSessions(siteId: siteId.map { SiteID($0) })
            .filter { scope.permits($0.siteId) }
        let names = Dictionary(
            try await repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return open.map { PresenceEntry(session: $0, name: names[$0.userId]) }
    }

    // MARK: Remote config

    /// The engine configuration for a device (keys of the engine's `Configuration`, docs/ENGINE.md):
    /// its identity, every site and every calibrated beacon. The engine keeps its defaults for the
    /// rest.
    public func deviceConfig(device: DeviceID, user: UserID) async throws -> DeviceConfiguration {
        let sites = try await repository.sites().filter(\.isActive)
        let byId = Dictionary(sites.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let calibrations = try await repository.beacons(siteId: nil).compactMap {
            beacon -> DeviceConfiguration.BeaconCalibration? in
            guard let power = beacon.txPowerDBm, let site = byId[beacon.siteId] else { return nil }
            return DeviceConfiguration.BeaconCalibration(
                uuid: site.beacon.uuid.uuidString, major: Int(site.beacon.major), minor: Int(beacon.minor),
                txPowerDBm: power)
        }
        return DeviceConfiguration(
            userID: user.rawValue, deviceID: device.rawValue,
            sites: sites.map { site in
                DeviceConfiguration.Site(
                    siteID: site.id.rawValue, name: site.name, uuid: site.beacon.uuid.uuidString,
                    major: Int(site.beacon.major), geofence: site.geofence)
            },
            beaconCalibrations: calibrations)
    }

    static func notFound(_ what: String, _ id: String) -> DomainError {
        DomainError(.notFound, "Not found", "no \(what) with id '\(id)'")
    }
}
