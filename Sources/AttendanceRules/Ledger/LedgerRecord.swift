import AttendanceModels
import Foundation

/// A ledger row's content, typed by its kind. The builders write one (`LedgerEvent(record:…)`),
/// and `LedgerRecord(reading:)` reads one back strictly: an unknown kind, an unknown field, a
/// version this release does not know or a field the kind needs that is missing is an error that
/// names the row, never a default. Stored, it is `LedgerPayload`'s canonical JSON, the bytes the
/// row's hash covers; `payload` is the one mapping from the typed value to those bytes.
public enum LedgerRecord: Hashable, Sendable {
    /// The payload format this release writes and reads. Rows carry no `version` while it is 1.
    public static let version = 1

    case checkIn(CheckIn)
    case checkOut(SessionEvent)
    case heartbeat(SessionEvent)
    case sessionCorrected(SessionChange)
    case sessionAdded(SessionChange)
    case sessionVoided(SessionChange)
    case requestFiled(RequestFiled)
    case requestApproved(RequestDecision)
    case requestRejected(RequestDecision)
    /// An admin, account, settings or pay-period action (audit only): its kind is one of
    /// `LedgerKind.auditKinds`.
    case audit(Audit)

    /// A device's check-in, as accepted.
    public struct CheckIn: Hashable, Sendable {
        public var siteId: SiteID
        public var deviceId: DeviceID?
        public var source: EventSource
        /// The reason, the app's version and the check-in's signal, as sent (no check-out source).
        public var evidence: SessionEvidence

        public init(siteId: SiteID, deviceId: DeviceID?, source: EventSource, evidence: SessionEvidence) {
            self.siteId = siteId
            self.deviceId = deviceId
            self.source = source
            self.evidence = evidence
        }
    }

    /// A device's check-out or heartbeat, as accepted.
    public struct SessionEvent: Hashable, Sendable {
        public var deviceId: DeviceID?
        public var source: EventSource
        public var reason: String?

        public init(deviceId: DeviceID?, source: EventSource, reason: String?) {
            self.deviceId = deviceId
            self.source = source
            self.reason = reason
        }
    }

    /// A person's correction, addition or void of a session: why, what changed, and the new
    /// values (an addition carries all of them; a correction the ones it sets; a void none).
    public struct SessionChange: Hashable, Sendable {
        public var reason: String
        public var changes: [String: LedgerChange]
        /// The request an approval applied.
        public var requestId: CorrectionRequestID?
        public var siteId: SiteID?
        public var checkInAt: Date?
        public var checkOutAt: Date?
        /// The check-out reason a correction that closes an open session records, when it is not
        /// `SessionCorrection.corrected` (a deactivation's).
        public var closingReason: String?

        public init(
            reason: String, changes: [String: LedgerChange], requestId: CorrectionRequestID? = nil,
            siteId: SiteID? = nil,
            checkInAt: Date? = nil, checkOutAt: Date? = nil, closingReason: String? = nil
        ) {
            self.reason = reason
            self.changes = changes
            self.requestId = requestId
            self.siteId = siteId
            self.checkInAt = checkInAt
            self.checkOutAt = checkOutAt
            self.closingReason = closingReason
        }
    }

    /// An employee's request, as filed.
    public struct RequestFiled: Hashable, Sendable {
        public var requestId: CorrectionRequestID
        public var kind: CorrectionRequestRecord.Kind
        public var siteId: SiteID?
        public var checkInAt: Date?
        public var checkOutAt: Date?
        public var reason: String
        public var evidence: [String: String]

        public init(
            requestId: CorrectionRequestID, kind: CorrectionRequestRecord.Kind, siteId: SiteID?, checkInAt: Date?,
            checkOutAt: Date?, reason: String, evidence: [String: String]
        ) {
            self.requestId = requestId
            self.kind = kind
            self.siteId = siteId
            self.checkInAt = checkInAt
            self.checkOutAt = checkOutAt
            self.reason = reason
            self.evidence = evidence
        }
    }

    /// An approval or rejection of a request.
    public struct RequestDecision: Hashable, Sendable {
        public var requestId: CorrectionRequestID
        public var comment: String?

        public init(requestId: CorrectionRequestID, comment: String?) {
            self.requestId = requestId
            self.comment = comment
        }
    }

    /// An action on the directory, accounts, settings or pay periods: what it changed, field by
    /// field (personal fields are in the row's erasable part, not here), and why when asked.
    public struct Audit: Hashable, Sendable {
        public var kind: LedgerKind
        /// The id of what changed (a site, a beacon, `payPeriod/<start>`…).
        public var target: String?
        /// Empty when the action changed nothing a person reads (a sign-in).
        public var changes: [String: LedgerChange]
        public var reason: String?

        public init(kind: LedgerKind, target: String?, changes: [String: LedgerChange], reason: String? = nil) {
            self.kind = kind
            self.target = target
            self.changes = changes
            self.reason = reason
        }
    }

    /// The row's kind.
    public var kind: LedgerKind {
        switch self {
        case .checkIn: .checkIn
        case .checkOut: .checkOut
        case .heartbeat: .heartbeat
        case .sessionCorrected: .sessionCorrected
        case .sessionAdded: .sessionAdded
        case .sessionVoided: .sessionVoided
        case .requestFiled: .requestFiled
        case .requestApproved: .requestApproved
        case .requestRejected: .requestRejected
        case .audit(let audit): audit.kind
        }
    }

    /// Why, as a person gave it: a check-out's or a change's reason, a manual check-in's, a
    /// request's, a reopened pay period's (empty when there is none).
    public var reason: String {
        switch self {
        case .checkIn(let checkIn): checkIn.evidence.checkInReason ?? ""
        case .checkOut(let event), .heartbeat(let event): event.reason ?? ""
        case .sessionCorrected(let change), .sessionAdded(let change), .sessionVoided(let change): change.reason
        case .requestFiled(let filed): filed.reason
        case .requestApproved(let decision), .requestRejected(let decision): decision.comment ?? ""
        case .audit(let audit): audit.reason ?? ""
        }
    }

    /// What changed, field by field (empty for device events and requests).
    public var changes: [String: LedgerChange] {
        switch self {
        case .sessionCorrected(let change), .sessionAdded(let change), .sessionVoided(let change): change.changes
        case .audit(let audit): audit.changes
        default: [:]
        }
    }

    /// The id of what an audit row changed.
    public var target: String? {
        if case .audit(let audit) = self { return audit.target }
        return nil
    }
}
