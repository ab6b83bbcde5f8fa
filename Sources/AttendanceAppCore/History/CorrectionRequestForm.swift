import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// The "Request a correction" sheet: the employee proposes the right times for one of their
/// sessions (or a session the phone missed), with a reason; HR approves or rejects it on the
/// server. The times start from what the phone knows: the session's own times, or when motion
/// history says the employee stopped walking (arrived) or started walking (left). What the phone
/// knew travels with the request as evidence for HR.
public struct CorrectionRequestForm: Hashable, Sendable {
    public enum Target: Hashable, Sendable {
        /// One of the employee's sessions, as the server has it.
        case session(ServerSession)
        /// A session the phone did not record.
        case missing
    }

    public struct SiteChoice: Hashable, Sendable, Identifiable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// What the phone knew, from its motion history and its last ranging.
    public struct PhoneEvidence: Hashable, Sendable {
        public var stoppedWalkingAt: Date?
        public var startedWalkingAt: Date?
        public var lastBeaconHeardAt: Date?

        public init(stoppedWalkingAt: Date? = nil, startedWalkingAt: Date? = nil, lastBeaconHeardAt: Date? = nil) {
            self.stoppedWalkingAt = stoppedWalkingAt
            self.startedWalkingAt = startedWalkingAt
            self.lastBeaconHeardAt = lastBeaconHeardAt
        }

        /// What the phone knows about `session` (nil: a missed one): the walk in and the walk out
        /// its motion history shows (the walk out after the check-in), and, while the phone still
        /// tracks the same session, when it last heard the site's beacon.
        public init(motion: MotionSnapshot?, session: ServerSession?, status: DeviceStatus) {
            stoppedWalkingAt = motion?.manualTimeOffer(checkIn: true, notBefore: nil)
            startedWalkingAt = motion?.manualTimeOffer(checkIn: false, notBefore: session?.checkInAt)
            lastBeaconHeardAt = session.flatMap { session in
                status.openSessions.first { $0.key == session.id && $0.heardSinceCheckIn }?.lastHeardAt
            }
        }
    }

    public static let reasonLength = 3...500
    /// A proposed time may be this far ahead of the phone's clock (the server allows 300 s).
    static let futureAllowanceSeconds: Double = 300

    public let target: Target
    public let sites: [SiteChoice]
    public let evidence: PhoneEvidence
    public var siteID: String?
    public var checkInAt: Date?
    public var checkOutAt: Date?
    public var reason = ""

    public init(target: Target, sites: [SiteChoice], evidence: PhoneEvidence) {
        self.target = target
        self.sites = sites
        self.evidence = evidence
        switch target {
        case .session(let session):
            siteID = session.siteID
            checkInAt = session.checkInAt
            // An open session: the walk out is the best guess for when the employee left.
            checkOutAt = session.checkOutAt ?? evidence.startedWalkingAt.flatMap { $0 > session.checkInAt ? $0 : nil }
        case .missing:
            siteID = sites.count == 1 ? sites[0].id : nil
            checkInAt = evidence.stoppedWalkingAt
            // The walk out is offered only when it came after the walk in.
            if let left = evidence.startedWalkingAt, left > (evidence.stoppedWalkingAt ?? .distantPast) {
                checkOutAt = left
            }
        }
    }

    /// The names of the sites the employee can name, by server id (for the server's record).
    public static func siteNames(_ status: DeviceStatus, format: DisplayFormat) -> [String: String] {
        Dictionary(
            siteChoices(status, format: format).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The sites the employee can name: those the server gave an id, by name.
    public static func siteChoices(_ status: DeviceStatus, format: DisplayFormat) -> [SiteChoice] {
        let names = status.siteNames
        return status.sites.compactMap { site in
            site.siteID.map {
                SiteChoice(
                    id: $0.rawValue,
                    name: format.siteName(site.beacon(defaultUUID: status.proximityUUID), in: names))
            }
        }
    }

    public var title: LocalizedText {
        switch target {
        case .session: LocalizedText("Request a correction")
        case .missing: LocalizedText("Report a missed session")
        }
    }

    /// The request to send, or every field to fix.
    public func draft(now: Date) throws(FieldErrors) -> RequestDraft {
        var errors: [FieldError] = []
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if !Self.reasonLength.contains(trimmed.count) {
            errors.append(
                FieldError(
                    field: LocalizedText("Reason"), value: reason,
                    expected: LocalizedText(
                        "why the record is wrong, %lld to %lld characters", .count(Self.reasonLength.lowerBound),
                        .count(Self.reasonLength.upperBound))))
        }
        if case .missing = target {
            if siteID == nil {
                errors.append(
                    FieldError(
                        field: LocalizedText("Site"), value: "", expected: LocalizedText("the site you worked at")))
            }
            if checkInAt == nil {
                errors.append(
                    FieldError(field: LocalizedText("Arrived"), value: "", expected: LocalizedText("when you arrived")))
            }
        }
        for (field, time) in [(LocalizedText("Arrived"), checkInAt), (LocalizedText("Left"), checkOutAt)] {
            if let time, time.timeIntervalSince(now) > Self.futureAllowanceSeconds {
                errors.append(
                    FieldError(
                        field: field, value: RFC3339.format(time), expected: LocalizedText("a time that has passed")))
            }
        }
        if let arrived = checkInAt, let left = checkOutAt, left < arrived {
            errors.append(
                FieldError(
                    field: LocalizedText("Left"), value: RFC3339.format(left),
                    expected: LocalizedText("a time after you arrived (%@)", .verbatim(RFC3339.format(arrived)))))
        }
        var sessionKey: SessionKey?
        var proposedIn = checkInAt
        var proposedOut = checkOutAt
        var proposedSite = siteID
        if case .session(let session) = target {
            sessionKey = session.id
            // Only what changes is asked for.
            if proposedIn == session.checkInAt { proposedIn = nil }
            if proposedOut == session.checkOutAt { proposedOut = nil }
            if proposedSite == session.siteID { proposedSite = nil }
            if proposedIn == nil, proposedOut == nil, proposedSite == nil {
                errors.append(
                    FieldError(
                        field: LocalizedText("Times"), value: "",
                        expected: LocalizedText("the arrival, departure or site as it should be")))
            }
        }
        guard errors.isEmpty else { throw FieldErrors(errors) }
        var facts: [String: String] = [:]
        facts["motionStoppedAt"] = evidence.stoppedWalkingAt.map(RFC3339.format)
        facts["motionStartedAt"] = evidence.startedWalkingAt.map(RFC3339.format)
        facts["lastBeaconHeardAt"] = evidence.lastBeaconHeardAt.map(RFC3339.format)
        return RequestDraft(
            sessionKey: sessionKey, siteID: proposedSite, checkInAt: proposedIn, checkOutAt: proposedOut,
            reason: trimmed, evidence: facts)
    }
}
