import AttendanceModels
import Foundation

/// Every threshold the engine uses, in one Codable value. The server's remote configuration (the
/// contract's `DeviceConfig`) fills in the identity, the sites and the beacon calibrations.
///
/// Units are in the names. A config file (or a snapshot written by an earlier version) may give
/// any subset of the keys; the rest keep their defaults. Unknown keys are rejected, so a typo never
/// silently falls back to a default.
/// The defaults and where they come from are documented in `docs/ENGINE.md`.
public struct Configuration: Hashable, Sendable, Codable {
    // MARK: Identity (from enrollment)
    public var userID: UserID = "local-user"
    public var deviceID: DeviceID = "local-device"

    // MARK: Sites
    /// The proximity UUID every site shares unless a site says otherwise.
    public var proximityUUID: UUID = SiteBeacon.defaultUUID
    /// Known sites. Empty means "every major under `proximityUUID` is a site" (replay, trials).
    /// When non-empty it is an allow-list: beacons of other majors are ignored, because the
    /// default UUID is a vendor default that unrelated beacons also advertise.
    public var sites: [SiteConfiguration] = []
    /// Monitor one region per site (a callback per site) or one per UUID (saves region slots).
    public var regionMonitoring: RegionMonitoring = .perSite

    // MARK: Ranging decision (starting defaults: docs/ENGINE.md)
    /// A ranging window lasts at most this long; iOS gives ~10 s of background time per region
    /// event (Apple DTS), so the window must fit inside it.
    public var rangingWindowMaxSeconds: Double = 8
    public var earlyConfirmMinSamples: Int = 4
    public var earlyConfirmMaxStdevDB: Double = 6
    /// Early confirmation needs a median strictly above this.
    public var earlyConfirmMinMedianDBm: Double = -70
    /// At the window's end a median strictly above this confirms without motion.
    public var windowEndConfirmMinMedianDBm: Double = -65
    /// At the window's end, walking confirms only with a median strictly above this. −127
    /// reproduces the first rule (walking alone confirms: decision 0009), which checks in walk-bys that
    /// pass 10–20 m from a beacon (−79 to −85 dBm with n = 2).
    public var walkingConfirmMinMedianDBm: Double = -80
    /// The walking rule waits until the person has stopped after walking (CoreMotion: stationary
    /// now, steps in the look-back): an arrival ends at a desk, while a walk through a
    /// neighbouring site (an annex reached through the office) never stops there. false: walking
    /// alone is enough, as before.
    public var walkingConfirmNeedsStop: Bool = true
    /// After an insufficient window, a heard sample may open the next window only after this
    /// long. Region entries and region-state callbacks (screen on) retry at once.
    public var rangingRetryCooldownSeconds: Double = 60
    /// A window opened by a region entry or an inside state that ends undecided at its deadline
    /// is followed at once by up to this many more, while iOS still gives the app time (the
    /// background task's ~30 s): an entry is often reported before the door, while the samples
    /// are still weak, and the next chance may be an hour away.
    public var followUpWindows: Int = 3
    /// Dwell: a site heard in undecided windows (median at or above `dwellMinMedianDBm`, the
    /// loudest site in them) with evidence spanning at least `dwellConfirmSeconds`, while iOS
    /// never reported it left for longer than the merge window, is checked in from the first
    /// evidence. An edge-of-coverage desk or a cluttered warehouse never gets −65 dBm; a walk-by
    /// does not stay, and a neighbour heard through a wall is not the loudest.
    public var dwellConfirmSeconds: Double = 300
    public var dwellMinMedianDBm: Double = -100
    /// Of the ranging time watched since a dwell began, at least this share must be windows
    /// that support it (heard, at or above `dwellMinMedianDBm`, loudest in most samples): a walk
    /// through one site to a desk in the next gives the first a few windows on the way in and
    /// then minutes of windows in which it is outranked or unheard.
    public var dwellMinSupportFraction: Double = 0.5
    /// The share a dwell needs when another site of the same UUID already had a dwell under way
    /// when it began (the person arrived there first): a desk by the wall hears the site next
    /// door about as loud as its own, and a coin toss between them must not move the employee.
    public var dwellContestedSupportFraction: Double = 0.7
    /// Dwell seen without a gap (back-to-back windows, which background location updates make possible) confirms after this
    /// long instead: a walk-by passes in a minute or two, and it was watched all along.
    public var dwellContinuousSeconds: Double = 150
    /// After a region entry or an inside state, the engine keeps the app running with background
    /// location updates (the `location` background mode, lowest accuracy) for at most this long
    /// while a window is still deciding, and ranges throughout: an entry reported before the
    /// door is decided at the door, not at the next screen wake. 0 turns this off (battery).
    public var backgroundLocationMaxSeconds: Double = 600
    /// Kept running, an entry's windows stop being followed after this many in a row that gave
    /// no evidence of the site (not heard, or another site of the UUID louder in most seconds)
    /// while the phone is still: the region next door reported through a wall. 10 windows (~80 s)
    /// outlast a phone's scan silences (at most 34 s) and a slow fade at the door (decision 0022).
    public var followUpWithoutEvidenceWindows: Int = 10
    /// The same, while a session is open at another site of the UUID and not leaving: the person
    /// is checked in next door, and an entry heard through the wall from a still phone is let go
    /// after this many windows without evidence. A walk over (the phone moving) is watched as
    /// long as any entry (`followUpWithoutEvidenceWindows`).
    public var followUpWithoutEvidenceElsewhereWindows: Int = 2
    /// The usual desk: a phone that stayed at a site for at least `usualDeskMinStayMinutes` after
    /// an automatic check-in keeps that check-in window's median as where it usually sits there.
    /// Back at a stop (not on the move), a window whose median is no more than this below it, with
    /// no other site of the UUID heard, confirms at once (`usualDesk`) instead of dwelling for
    /// minutes: the second arrival at a desk is known. 0 turns the rule off.
    public var usualDeskToleranceDB: Double = 5
    public var usualDeskMinStayMinutes: Double = 60
    /// How far back the motion query looks, and how old a motion snapshot may be.
    public var motionLookbackMinutes: Double = 2
    /// Steps within the look-back that count as walking when the activity is unknown.
    public var walkingMinSteps: Int = 8

    // MARK: Presence
    /// A silence shorter than this is a dropout: the session stays `inside`. Must be ≥ 10 s.
    public var softExitGraceSeconds: Double = 90
    /// Heard again within this long after the last time heard, the session resumes with the
    /// same key; the check-out is committed only once this has passed. Must be ≥ the grace.
    public var mergeWindowSeconds: Double = 600
    /// iOS reports a region exit about this long after the last packet (Estimote KB; "Learning
    /// iBeacon" ch. 5), so an exit at T means the site was last heard at about T − this.
    public var regionExitDelaySeconds: Double = 30
    /// On an exit, motion history this far back is asked for: a walk that began after the
    /// session was last heard and before iOS noticed dates the departure (iOS's exit can come
    /// minutes after the last packet; the walk out is in CoreMotion's history).
    public var departureMotionLookbackMinutes: Double = 10
    /// A suspected exit is called off when motion history since the site was last heard shows no
    /// walk at all: the phone has not left the desk it was heard at (iOS reports a desk at the
    /// edge of coverage outside for many minutes at a time). The session goes on, ranged for
    /// `stayedPutRangingSeconds`.
    public var stayedPutHoldsSession: Bool = true
    /// After such a call, the site is ranged this long (one window): a sample heard then is the
    /// session's evidence again, so a desk at the edge of coverage is not held on motion alone
    /// for hours. 0: not ranged.
    public var stayedPutRangingSeconds: Double = 8
    /// At most one heartbeat per this interval while inside.
    public var heartbeatIntervalSeconds: Double = 900
    /// A heartbeat waits up to this long for other traffic to travel with (a check-in or
    /// check-out, or the next heartbeat past the wait): each request costs the phone far more
    /// than its bytes. 0 sends each heartbeat at once.
    public var heartbeatHoldSeconds: Double = 1_800

    // MARK: Distance
    /// Measured power at 1 m (iBeacon convention) used when a beacon has no calibration.
    public var txPowerDBm: Double = -59
    /// Log-distance path-loss exponent: 2.0 in free space, 2.5–3.5 in offices.
    public var pathLossExponent: Double = 2.0
    /// Per-beacon measured power overrides.
    public var beaconCalibrations: [BeaconCalibration] = []

    // MARK: Fallback
    /// A reminder to open the app is scheduled this many hours ahead and pushed back whenever
    /// the app runs (screen wakes alone run it dozens of times a day), so it appears only after
    /// that long without running: after a force-quit, which iOS never undoes by itself. 0: off.
    public var resumeReminderHours: Double = 3
    /// How many reminders, `resumeReminderHours` apart: one seen and ignored is not the last
    /// chance before the next shift (a force-quit in the evening is seen once in the morning).
    public var resumeReminderCount: Int = 3
    /// A notification held by iOS for each monitored UUID's region and shown by iOS itself on
    /// entering it, whether or not the app runs: the app, when it runs, withdraws it at once; after
    /// a force-quit it is the one thing that still says "open the app" on arrival. Always access only.
    public var arrivalReminders: Bool = true
    /// A manual check-in or check-out may be dated this far back (the employee taps after
    /// arriving or after leaving; the app offers the end or start of their last walk). 0: only now.
    public var manualBackdateMaxMinutes: Double = 60
    /// When automatic detection cannot work, a manual check-in prompt is shown at most this often.
    public var manualPromptMinIntervalSeconds: Double = 4 * 3600

    public init() {}

    public enum RegionMonitoring: String, Hashable, Sendable, Codable, CaseIterable {
        case perSite, uuidWide
    }

    /// Every key a configuration may use, one per property above; `knownKeys` and the decoder's
    /// refusal of any other key (`init(from:)`, Configuration+Decoding.swift) come from this list.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID, deviceID
        case proximityUUID, sites, regionMonitoring
        case rangingWindowMaxSeconds, earlyConfirmMinSamples, earlyConfirmMaxStdevDB, earlyConfirmMinMedianDBm
        case windowEndConfirmMinMedianDBm, walkingConfirmMinMedianDBm, walkingConfirmNeedsStop
        case rangingRetryCooldownSeconds, followUpWindows, dwellConfirmSeconds, dwellMinMedianDBm
        case dwellMinSupportFraction, dwellContestedSupportFraction, dwellContinuousSeconds
        case backgroundLocationMaxSeconds, followUpWithoutEvidenceWindows, followUpWithoutEvidenceElsewhereWindows
        case usualDeskToleranceDB, usualDeskMinStayMinutes
        case motionLookbackMinutes, walkingMinSteps
        case softExitGraceSeconds, mergeWindowSeconds, regionExitDelaySeconds, departureMotionLookbackMinutes
        case stayedPutHoldsSession, stayedPutRangingSeconds, heartbeatIntervalSeconds, heartbeatHoldSeconds
        case txPowerDBm, pathLossExponent, beaconCalibrations
        case resumeReminderHours, resumeReminderCount, arrivalReminders, manualBackdateMaxMinutes
        case manualPromptMinIntervalSeconds
    }
}

/// One work site as the device knows it.
public struct SiteConfiguration: Hashable, Sendable, Codable {
    /// The server's id for the site, if known.
    public var siteID: SiteID?
    public var name: String?
    /// The site's proximity UUID; `nil` means the configuration's `proximityUUID`.
    public var uuid: UUID?
    public var major: UInt16
    /// The site's campus geofence, when the server has one: the app monitors it (within the
    /// 20-region budget) so iOS wakes it near the site even before a beacon is heard.
    public var geofence: Geofence?

    public init(siteID: SiteID? = nil, name: String? = nil, uuid: UUID? = nil, major: UInt16, geofence: Geofence? = nil) {
        self.siteID = siteID
        self.name = name
        self.uuid = uuid
        self.major = major
        self.geofence = geofence
    }

    public func beacon(defaultUUID: UUID) -> SiteBeacon { SiteBeacon(uuid: uuid ?? defaultUUID, major: major) }
}

/// A measured power for one beacon (`minor` given) or every beacon of a site (`minor` nil,
/// which survives minor rotation).
public struct BeaconCalibration: Hashable, Sendable, Codable {
    public var uuid: UUID?
    public var major: UInt16
    public var minor: UInt16?
    public var txPowerDBm: Double

    public init(uuid: UUID? = nil, major: UInt16, minor: UInt16? = nil, txPowerDBm: Double) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.txPowerDBm = txPowerDBm
    }
}
