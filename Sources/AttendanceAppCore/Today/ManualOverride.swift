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

    public static let reasonPresets = ["Beacon not detected", "Phone was off or out of battery", "Forgot my phone",
                                       "Working at a site without beacons"]
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
    public init?(_ kind: Kind, status: DeviceStatus, motion: MotionSnapshot? = nil) {
        let names = status.siteNames
        let open = Set(status.openSessions.map(\.site))
        let sites = kind == .checkIn ? status.siteBeacons.filter { !open.contains($0) } : status.openSessions.map(\.site)
        guard !sites.isEmpty else { return nil }
        self.kind = kind
        choices = sites.map { Choice(id: $0, name: DisplayFormat.siteName($0, in: names)) }
        if choices.count == 1 { site = choices[0].id }
        let latestCheckIn = kind == .checkOut ? status.openSessions.map(\.checkInAt).max() : nil
        offeredTime = motion?.manualTimeOffer(checkIn: kind == .checkIn, notBefore: latestCheckIn)
        offersCheckInTime = offeredTime != nil && offeredTime == latestCheckIn
        useOfferedTime = kind == .checkIn && offeredTime != nil
    }

    public var title: String { kind == .checkIn ? "Check in by hand" : "Check out by hand" }

    /// The time the event carries: the offered one if chosen, otherwise none (now).
    private var chosenTime: Date? { useOfferedTime ? offeredTime : nil }

    /// The offered time, in words for the sheet's switch; `nil` when there is none.
    public func offer(format: DisplayFormat) -> String? {
        guard let offeredTime else { return nil }
        if kind == .checkIn { return "I arrived at \(format.time(offeredTime)) (when I stopped walking)" }
        return offersCheckInTime
            ? "I already left, at \(format.time(offeredTime)) (I was walking out when I checked in)"
            : "I already left, at \(format.time(offeredTime)) (when I started walking)"
    }

    /// The engine event to send, or every field to fix.
    public func validated() -> Result<EngineEvent, FieldErrors> {
        var errors: [FieldError] = []
        if site == nil || !choices.contains(where: { $0.id == site }) {
            errors.append(FieldError(field: "Site", value: site.map { "\($0)" } ?? "none", expected: "one of: " + choices.map(\.name).joined(separator: ", ")))
        }
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if !Self.reasonLength.contains(trimmed.count) {
            errors.append(FieldError(field: "Reason", value: trimmed,
                                     expected: "\(Self.reasonLength.lowerBound) to \(Self.reasonLength.upperBound) characters saying why (HR sees it)"))
        }
        guard errors.isEmpty, let site else { return .failure(FieldErrors(errors)) }
        return .success(kind == .checkIn ? .manualCheckIn(site, reason: trimmed, at: chosenTime) : .manualCheckOut(site, reason: trimmed, at: chosenTime))
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
            phase = .accepted("Checked in at \(name) at \(format.time(session.checkInAt)).")
        case (.checkOut, nil):
            phase = .accepted("Checked out of \(name) at \(format.time(chosenTime ?? sentAt)).")
        default:
            phase = .rejected("The app did not record the \(kind == .checkIn ? "check-in" : "check-out"); see Diagnostics.")
        }
    }
}
