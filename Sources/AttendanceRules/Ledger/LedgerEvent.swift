import AttendanceModels
import Foundation

/// One row of the append-only ledger (docs/SERVER.md, "The ledger"): an accepted device event, a
/// correction, a decision on a request or an admin action, with who did it, when the server
/// received it, when the device says it happened, and what it said. Rows are never updated or
/// deleted (only `personal` can be erased, see `LedgerHash`); sessions are derived from them.
public struct LedgerEvent: Hashable, Sendable {
    /// Assigned by the database in insertion order (0 before it is stored).
    public var id: Int64
    public var kind: LedgerKind
    public var sessionKey: SessionKey?
    /// The employee the event is about.
    public var userId: UserID?
    public var actor: LedgerActor
    public var receivedAt: Date
    /// When the device says it happened (device events only).
    public var deviceAt: Date?
    /// The event's content: canonical JSON (`LedgerPayload`), covered by the hash.
    public var payload: Data
    /// The personal part (`LedgerPersonal`) as stored: sealed with its subject's key
    /// (`PersonalSeal`), or canonical JSON in rows written before sealing and in a row not stored
    /// yet (the store seals it on the way in). Covered by the hash through its digest only, so
    /// erasing it keeps the chain verifiable. Nil when the row has none or it was erased.
    public var personal: Data?
    /// SHA-256 of `personal` as written (nil when the event carried none).
    public var personalDigest: String?
    /// Whose key seals `personal`: the employee, else the record the action was on.
    public var personalSubject: String?
    /// The personal part as people read it: opened with its subject's key when the row was read;
    /// nil when the row has none or it was erased (the key is gone).
    public var opened: LedgerPersonal?
    /// `LedgerHash.content(of:)` as written.
    public var hash: String

    public init(
        id: Int64 = 0, kind: LedgerKind, sessionKey: SessionKey? = nil, userId: UserID? = nil, actor: LedgerActor,
        receivedAt: Date, deviceAt: Date? = nil, payload: Data, personal: LedgerPersonal? = nil,
        subject: String? = nil
    ) {
        let part = personal?.isEmpty == false ? personal : nil
        let written = part?.encoded()
        self.init(
            stored: id, kind: kind, sessionKey: sessionKey, userId: userId, actor: actor, receivedAt: receivedAt,
            deviceAt: deviceAt, payload: payload, personal: written,
            personalDigest: written.map { SHA256.hex(bytes: $0) }, hash: "")
        opened = part
        personalSubject = part == nil ? nil : subject ?? userId?.rawValue
        hash = LedgerHash.content(of: self)
    }

    /// A row as read back, with the hashes it was stored with (verification recomputes them); its
    /// personal part is opened by the store (`opening(with:)`).
    public init(
        stored id: Int64, kind: LedgerKind, sessionKey: SessionKey?, userId: UserID?, actor: LedgerActor,
        receivedAt: Date, deviceAt: Date?, payload: Data, personal: Data?, personalDigest: String?, hash: String
    ) {
        self.id = id
        self.kind = kind
        self.sessionKey = sessionKey
        self.userId = userId
        self.actor = actor
        self.receivedAt = receivedAt
        self.deviceAt = deviceAt
        self.payload = payload
        self.personal = personal
        self.personalDigest = personalDigest
        self.personalSubject = personal.flatMap(PersonalSeal.subject(of:))
        self.hash = hash
    }

    /// A new row holding `record`, of the record's kind; the free text it carries goes in the
    /// personal part with `personal`.
    public init(
        _ record: LedgerRecord, sessionKey: SessionKey? = nil, userId: UserID? = nil, actor: LedgerActor,
        receivedAt: Date, deviceAt: Date? = nil, personal: LedgerPersonal? = nil, subject: String? = nil
    ) {
        var part = personal ?? LedgerPersonal()
        record.freeText.map { part.add($0) }
        self.init(
            kind: record.kind, sessionKey: sessionKey, userId: userId, actor: actor, receivedAt: receivedAt,
            deviceAt: deviceAt, payload: record.payload.encoded(), personal: part, subject: subject)
    }

    /// The row's typed content, read strictly (`LedgerRecord(reading:)`).
    public func record() throws -> LedgerRecord {
        try LedgerRecord(reading: self)
    }
}

/// What a ledger row records. Device events and what changes a session drive the sessions; the
/// rest is the audit trail.
public struct LedgerKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Device events (what `SessionLedger` replays).
    public static let checkIn = LedgerKind(rawValue: "checkIn")
    public static let checkOut = LedgerKind(rawValue: "checkOut")
    public static let heartbeat = LedgerKind(rawValue: "heartbeat")
    // Changes made by people, also replayed.
    public static let sessionCorrected = LedgerKind(rawValue: "session.corrected")
    public static let sessionAdded = LedgerKind(rawValue: "session.added")
    public static let sessionVoided = LedgerKind(rawValue: "session.voided")
    // Requests.
    public static let requestFiled = LedgerKind(rawValue: "request.filed")
    public static let requestApproved = LedgerKind(rawValue: "request.approved")
    public static let requestRejected = LedgerKind(rawValue: "request.rejected")
    // Admin actions on the directory (audit only).
    public static let siteCreated = LedgerKind(rawValue: "site.created")
    public static let siteUpdated = LedgerKind(rawValue: "site.updated")
    public static let siteDeleted = LedgerKind(rawValue: "site.deleted")
    public static let beaconCreated = LedgerKind(rawValue: "beacon.created")
    public static let beaconDeleted = LedgerKind(rawValue: "beacon.deleted")
    public static let employeeCreated = LedgerKind(rawValue: "employee.created")
    public static let employeeUpdated = LedgerKind(rawValue: "employee.updated")
    public static let employeeDeactivated = LedgerKind(rawValue: "employee.deactivated")
    public static let employeeReactivated = LedgerKind(rawValue: "employee.reactivated")
    public static let accountTOTPReset = LedgerKind(rawValue: "account.totpReset")
    public static let accountPolicyChanged = LedgerKind(rawValue: "accountPolicy.changed")
    public static let employeeErased = LedgerKind(rawValue: "employee.erased")
    public static let enrollmentCodeIssued = LedgerKind(rawValue: "enrollmentCode.issued")
    public static let deviceEnrolled = LedgerKind(rawValue: "device.enrolled")
    public static let deviceRevoked = LedgerKind(rawValue: "device.revoked")
    public static let adminTokenInstalled = LedgerKind(rawValue: "adminToken.installed")
    public static let adminTokenReplaced = LedgerKind(rawValue: "adminToken.replaced")
    // Accounts, their sign-ins and API tokens (audit only).
    public static let accountCreated = LedgerKind(rawValue: "account.created")
    public static let accountUpdated = LedgerKind(rawValue: "account.updated")
    public static let accountSignedIn = LedgerKind(rawValue: "account.signedIn")
    public static let accountSignedOut = LedgerKind(rawValue: "account.signedOut")
    public static let accountSignInFailed = LedgerKind(rawValue: "account.signInFailed")
    public static let apiTokenIssued = LedgerKind(rawValue: "apiToken.issued")
    public static let apiTokenRevoked = LedgerKind(rawValue: "apiToken.revoked")
    // Timesheet settings: schedules, assignments, a site's rules, holidays, leave (audit only).
    public static let timesheetSettingSaved = LedgerKind(rawValue: "timesheetSetting.saved")
    public static let timesheetSettingRemoved = LedgerKind(rawValue: "timesheetSetting.removed")
    // Pay periods (audit only; a reopening carries its reason).
    public static let payPeriodApproved = LedgerKind(rawValue: "payPeriod.approved")
    public static let payPeriodUnapproved = LedgerKind(rawValue: "payPeriod.unapproved")
    public static let payPeriodLocked = LedgerKind(rawValue: "payPeriod.locked")
    public static let payPeriodReopened = LedgerKind(rawValue: "payPeriod.reopened")

    /// The kinds that only record an action (`LedgerRecord.audit`): every kind but the device
    /// events, the session changes and the requests.
    public static let auditKinds: Set<LedgerKind> = [
        .siteCreated, .siteUpdated, .siteDeleted, .beaconCreated, .beaconDeleted, .employeeCreated,
        .employeeUpdated, .employeeDeactivated, .employeeReactivated, .accountTOTPReset, .accountPolicyChanged,
        .employeeErased,
        .enrollmentCodeIssued, .deviceEnrolled,
        .deviceRevoked, .adminTokenInstalled, .adminTokenReplaced, .accountCreated, .accountUpdated,
        .accountSignedIn, .accountSignedOut, .accountSignInFailed, .apiTokenIssued, .apiTokenRevoked,
        .timesheetSettingSaved, .timesheetSettingRemoved, .payPeriodApproved, .payPeriodUnapproved,
        .payPeriodLocked, .payPeriodReopened,
    ]
}

/// Who made a ledger row: a device (and so its employee), the admin token, the employee through
/// their device (requests), the server itself, or the upgrade that created the ledger.
public struct LedgerActor: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static func device(_ id: DeviceID) -> LedgerActor { LedgerActor(rawValue: "device:\(id.rawValue)") }
    public static let adminToken = LedgerActor(rawValue: "admin-token")
    /// A person or machine acting through an account (the console, an API token).
    public static func account(_ id: AccountID) -> LedgerActor { LedgerActor(rawValue: "account:\(id.rawValue)") }
    public static let server = LedgerActor(rawValue: "server")
    public static let migration = LedgerActor(rawValue: "migration")

    /// The actor of what `principal` does.
    public init(_ principal: Principal) {
        switch principal {
        case .admin: self = .adminToken
        case .staff(let staff): self = .account(staff.accountId)
        case .device(let device, _): self = .device(device)
        }
    }
}
