import AttendanceModels
import Foundation

/// A correction an admin (or an approved request) makes to a session: the fields given replace
/// the current values; nothing is overwritten in the ledger, the correction is a row of its own.
public struct SessionCorrection: Hashable, Sendable {
    public var checkInAt: Date?
    public var checkOutAt: Date?
    public var siteId: SiteID?
    public var reason: String
    /// What an open session's check-out records as its reason when this closes it.
    public var closingReason: String

    public init(
        checkInAt: Date? = nil, checkOutAt: Date? = nil, siteId: SiteID? = nil, reason: String,
        closingReason: String = SessionCorrection.corrected
    ) {
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.siteId = siteId
        self.reason = reason
        self.closingReason = closingReason
    }

    /// The check-out reason of a session a correction closed.
    public static let corrected = "corrected"

    /// Closes an open session at `now` (or at its check-in, if that is later) because its employee
    /// was deactivated: they are no longer on site, and nothing of theirs will check them out.
    public static func deactivation(of session: SessionRecord, at now: Date) -> SessionCorrection {
        SessionCorrection(
            checkOutAt: max(now, session.checkInAt), reason: "deactivated", closingReason: "deactivated")
    }
}

/// A session an admin adds (one the phone missed), with the reason.
public struct AddedSession: Hashable, Sendable {
    public var sessionKey: SessionKey
    public var userId: UserID
    public var siteId: SiteID
    public var checkInAt: Date
    public var checkOutAt: Date?
    public var reason: String

    public init(
        sessionKey: SessionKey, userId: UserID, siteId: SiteID, checkInAt: Date, checkOutAt: Date?, reason: String
    ) {
        self.sessionKey = sessionKey
        self.userId = userId
        self.siteId = siteId
        self.checkInAt = checkInAt
        self.checkOutAt = checkOutAt
        self.reason = reason
    }
}

/// What a correction, an addition or a void found.
public enum CorrectionOutcome: Hashable, Sendable {
    /// Applied: the session as it is now.
    case applied(SessionRecord)
    case notFound(SessionKey)
    /// A voided session can't be corrected or voided again.
    case voided(SessionKey)
    /// The key of an added session is taken.
    case exists(SessionKey)
    /// A value that can't stand: which field, which value, what was expected.
    case invalid(field: String, value: String, expected: String)
}

extension SessionLedger {
    /// What a correction, an addition or a void does.
    public enum ChangeDecision: Hashable, Sendable {
        /// Nothing to write; this is the answer.
        case answer(CorrectionOutcome)
        /// Write the session as it is after the change, and the ledger row describing it.
        case write(SessionRecord, changes: [String: LedgerChange])
    }

    /// A correction: the given fields replace the session's; the check-in must stay before the
    /// check-out, and a correction that changes nothing is refused (it would say nothing).
    /// Closing an open session by correction records `corrected` as its check-out's reason.
    public static func correct(
        _ correction: SessionCorrection, of session: SessionRecord?, key: SessionKey
    )
        -> ChangeDecision
    {
        guard let session else { return .answer(.notFound(key)) }
        guard session.voidedAt == nil else { return .answer(.voided(key)) }
        var next = session
        if let checkInAt = correction.checkInAt { next.checkInAt = checkInAt }
        if let checkOutAt = correction.checkOutAt {
            next.checkOutAt = checkOutAt
            if session.checkOutAt == nil { next.checkOutReason = correction.closingReason }
        }
        if let siteId = correction.siteId { next.siteId = siteId }
        if let checkOut = next.checkOutAt, checkOut < next.checkInAt {
            let field = correction.checkOutAt != nil ? "checkOutAt" : "checkInAt"
            let value = correction.checkOutAt ?? correction.checkInAt ?? next.checkInAt
            return .answer(
                .invalid(
                    field: field, value: RFC3339.format(value),
                    expected: "a check-in at or before the check-out (\(RFC3339.format(next.checkInAt)) → "
                        + "\(RFC3339.format(checkOut)))"))
        }
        next.lastSeenAt = max(next.lastSeenAt, next.checkOutAt ?? next.checkInAt)
        let changes = LedgerChange.diff(shown(session), shown(next))
        guard !changes.isEmpty else {
            return .answer(
                .invalid(
                    field: "body", value: "no change",
                    expected: "at least one of checkInAt, checkOutAt or siteId different from the session's"))
        }
        next.corrected = true
        return .write(next, changes: changes)
    }

    /// A session the phone missed, added with a reason; it counts as corrected from the start.
    public static func add(_ added: AddedSession, existing: SessionRecord?) -> ChangeDecision {
        guard existing == nil else { return .answer(.exists(added.sessionKey)) }
        if let checkOut = added.checkOutAt, checkOut < added.checkInAt {
            return .answer(
                .invalid(
                    field: "checkOutAt", value: RFC3339.format(checkOut),
                    expected: "a time at or after checkInAt (\(RFC3339.format(added.checkInAt)))"))
        }
        let session = SessionRecord(
            sessionKey: added.sessionKey, userId: added.userId, siteId: added.siteId, deviceId: nil,
            checkInAt: added.checkInAt, checkOutAt: added.checkOutAt,
            checkOutReason: added.checkOutAt == nil ? nil : "added", lastSeenAt: added.checkOutAt ?? added.checkInAt,
            source: .manual, evidence: SessionEvidence(checkInReason: added.reason), corrected: true)
        return .write(session, changes: LedgerChange.diff([:], shown(session)))
    }

    /// A void: the session stays, marked void with the reason, and counts nowhere.
    public static func void(_ session: SessionRecord?, key: SessionKey, reason: String, at: Date) -> ChangeDecision {
        guard var next = session else { return .answer(.notFound(key)) }
        guard next.voidedAt == nil else { return .answer(.voided(key)) }
        next.voidedAt = at
        next.voidReason = reason
        next.corrected = true
        return .write(next, changes: ["status": LedgerChange(before: session?.status, after: next.status)])
    }

    /// The fields a correction can change, as people read them.
    package static func shown(_ session: SessionRecord) -> [String: String?] {
        [
            "checkInAt": RFC3339.format(session.checkInAt),
            "checkOutAt": session.checkOutAt.map(RFC3339.format),
            "siteId": session.siteId.rawValue,
        ]
    }
}
