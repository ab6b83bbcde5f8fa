import AttendanceEngine
import AttendanceModels
import Foundation

/// Manual check-in and check-out from the Today screen, for when automatic detection cannot
/// work (a dead beacon battery, a denied permission, a site without beacons). The employee
/// picks the site and gives a reason, which travels with the event for HR to review.
///
/// People tap late: minutes after sitting down, or on the way home. The phone's motion history
/// dates it: a check-in offers the end of the last walk (preselected: the walk in ends at the
/// desk), a check-out the start of the last walk (for an employee who has already left, so not
/// preselected). The engine accepts such a time up to `manualBackdateMaxMinutes` back.
public struct ManualOverride: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case checkIn, checkOut }

    public struct Choice: Hashable, Sendable, Identifiable {
        public var id: SiteBeacon
        public var name: String
    }

    public enum Phase: Hashable, Sendable {
        case editing
        /// Sent to the engine at this time; waiting to see its decision.
        case sent(at: Date)
        case accepted(String)
        case rejected(String)
    }

    /// Reasons to pick from, in the employee's language (the reason travels as shown).
    public static func reasonPresets(_ format: DisplayFormat) -> [String] {
        [
            LocalizedText("Beacon not detected"), LocalizedText("Phone was off or out of battery"),
            LocalizedText("Forgot my phone"), LocalizedText("Working at a site without beacons"),
        ].map(format.string)
    }
    public static let reasonLength = 3...200

    public let kind: Kind
    public let choices: [Choice]
    public var site: SiteBeacon?
    public var reason = ""
    /// When motion history says the employee arrived (check-in) or left (check-out), if it does.
    public let offeredTime: Date?
    /// Date the event at `offeredTime` rather than now.
    public var useOfferedTime: Bool
    public private(set) var phase: Phase = .editing
    /// The check-out offered is the check-in's own time: the walk out was under way then.
    private let offersCheckInTime: Bool

    /// A check-in offers the sites not checked in at; a check-out, the open sessions. `nil`
    /// when there is nothing to choose (the button is disabled then). `motion`: the phone's
    /// motion history (`AttendanceDevice.motionForManualTime()`), for the offered time.
    public init?(_ kind: Kind, format: DisplayFormat, status: DeviceStatus, motion: MotionSnapshot? = nil) {
        let names = status.siteNames
        let open = Set(status.openSessions.map(\.site))
        let sites =
            kind == .checkIn ? status.siteBeacons.filter { !open.contains($0) } : status.openSessions.map(\.site)
        guard !sites.isEmpty else { return nil }
        self.kind = kind
        choices = sites.map { Choice(id: $0, name: format.siteName($0, in: names)) }
        if choices.count == 1 { site = choices[0].id }
        let latestCheckIn = kind == .checkOut ? status.openSessions.map(\.checkInAt).max() : nil
        offeredTime = motion?.manualTimeOffer(checkIn: kind == .checkIn, notBefore: latestCheckIn)
        offersCheckInTime = offeredTime != nil && offeredTime == latestCheckIn
        useOfferedTime = kind == .checkIn && offeredTime != nil
    }

    public var title: LocalizedText {
        kind == .checkIn ? LocalizedText("Check in by hand") : LocalizedText("Check out by hand")
    }

    /// The time the event carries: the offered one if chosen, otherwise none (now).
    private var chosenTime: Date? { useOfferedTime ? offeredTime : nil }

    /// The offered time, in words for the sheet's switch; `nil` when there is none.
    public func offer(format: DisplayFormat) -> String? {
        guard let offeredTime else { return nil }
        let time = LocalizedText.Value.verbatim(format.time(offeredTime))
        if kind == .checkIn { return format.text("I arrived at %@ (when I stopped walking)", time) }
        return offersCheckInTime
            ? format.text("I already left, at %@ (I was walking out when I checked in)", time)
            : format.text("I already left, at %@ (when I started walking)", time)
    }

    /// The engine event to send, or every field to fix.
    public func validated() -> Result<EngineEvent, FieldErrors> {
        var errors: [FieldError] = []
        if site == nil || !choices.contains(where: { $0.id == site }) {
            errors.append(
                FieldError(
                    field: LocalizedText("Site"), value: site.map { "\($0)" } ?? "",
                    expected: LocalizedText("one of: %@", .verbatim(choices.map(\.name).joined(separator: ", ")))))
        }
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if !Self.reasonLength.contains(trimmed.count) {
            errors.append(
                FieldError(
                    field: LocalizedText("Reason"), value: trimmed,
                    expected: LocalizedText(
                        "%lld to %lld characters saying why (HR sees it)", .count(Self.reasonLength.lowerBound),
                        .count(Self.reasonLength.upperBound))))
        }
        guard errors.isEmpty, let site else { return .failure(FieldErrors(errors)) }
        return .success(
            kind == .checkIn
                ? .manualCheckIn(site, reason: trimmed, at: chosenTime)
                : .manualCheckOut(site, reason: trimmed, at: chosenTime))
    }

    public mutating func sent(at time: Date) { phase = .sent(at: time) }

    /// Reads the engine's decision from the status after sending: the session opened or closed,
    /// or the engine's rejection (recorded as telemetry) with its reason.
    public mutating func settle(with status: DeviceStatus, format: DisplayFormat) {
        guard case .sent(let sentAt) = phase, let site else { return }
        let name = choices.first { $0.id == site }?.name ?? "\(site)"
        if let rejection = status.telemetry.last(where: { $0.kind == .manualRejected && $0.at >= sentAt }) {
            phase = .rejected(rejection.detail)
            return
        }
        let open = status.openSessions.first { $0.site == site }
        switch (kind, open) {
        case (.checkIn, let session?):
            phase = .accepted(
                format.text("Checked in at %@ at %@.", .verbatim(name), .verbatim(format.time(session.checkInAt))))
        case (.checkOut, nil):
            phase = .accepted(
                format.text("Checked out of %@ at %@.", .verbatim(name), .verbatim(format.time(chosenTime ?? sentAt))))
        default:
            phase = .rejected(
                kind == .checkIn
                    ? format.text("The app did not record the check-in; see Diagnostics.")
                    : format.text("The app did not record the check-out; see Diagnostics."))
        }
    }
}
