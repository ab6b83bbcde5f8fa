import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// Everything the screens show, read at one instant from the runtime and its store. Screens
/// never read the engine or the database themselves: they format one of these.
public struct DeviceStatus: Sendable {
    public var now: Date
    public var enrollment: Enrollment?
    public var sites: [SiteConfiguration]
    public var proximityUUID: UUID
    /// Every tracked site and what the engine thinks of it.
    public var presence: [SiteBeacon: SitePresence.Status]
    public var permissions: Permissions
    public var lastUpload: UploadReport?
    public var outbox: OutboxCounts
    /// Every event still on the phone (pending, in flight, dead, delivered within retention).
    public var events: [OutboxEntry]
    /// Newest last.
    public var telemetry: [TelemetryRecord]
    /// What iOS last said about each monitored region (from the location service).
    public var regionStates: [BeaconRegion: RegionState]
    public var monitoredRegions: [BeaconRegion]
    public var isRanging: Bool
    /// What the phone knows of the server's ledger: its receipts and a problem it found.
    public var ledger: LedgerReceiptState?

    public struct Enrollment: Hashable, Sendable {
        public var serverURL: URL
        public var userID: UserID
        public var deviceID: DeviceID

        public init(serverURL: URL, userID: UserID, deviceID: DeviceID) {
            self.serverURL = serverURL
            self.userID = userID
            self.deviceID = deviceID
        }
    }

    public init(
        now: Date, enrollment: Enrollment? = nil, sites: [SiteConfiguration] = [],
        proximityUUID: UUID = SiteBeacon.defaultUUID,
        presence: [SiteBeacon: SitePresence.Status] = [:], permissions: Permissions = Permissions(),
        lastUpload: UploadReport? = nil,
        outbox: OutboxCounts = OutboxCounts(), events: [OutboxEntry] = [], telemetry: [TelemetryRecord] = [],
        regionStates: [BeaconRegion: RegionState] = [:], monitoredRegions: [BeaconRegion] = [], isRanging: Bool = false,
        ledger: LedgerReceiptState? = nil
    ) {
        self.now = now
        self.enrollment = enrollment
        self.sites = sites
        self.proximityUUID = proximityUUID
        self.presence = presence
        self.permissions = permissions
        self.lastUpload = lastUpload
        self.outbox = outbox
        self.events = events
        self.telemetry = telemetry
        self.regionStates = regionStates
        self.monitoredRegions = monitoredRegions
        self.isRanging = isRanging
        self.ledger = ledger
    }

    /// Site names by beacon, for display.
    public var siteNames: [SiteBeacon: String] {
        var names: [SiteBeacon: String] = [:]
        for site in sites { names[site.beacon(defaultUUID: proximityUUID)] = site.name }
        return names.compactMapValues { $0 }
    }

    /// The configured sites as beacons, in configuration order.
    public var siteBeacons: [SiteBeacon] { sites.map { $0.beacon(defaultUUID: proximityUUID) } }

    /// Open sessions (inside, or leaving but not yet checked out), oldest first.
    public var openSessions: [PresenceSession] {
        presence.values.compactMap { status -> PresenceSession? in
            switch status {
            case .inside(let session), .leaving(let session, _): return session
            case .outside, .confirming: return nil
            }
        }.sorted { $0.checkInAt < $1.checkInAt }
    }
}

extension AttendanceRuntime {
    /// The screens' snapshot of this runtime (the location service adds the region states).
    public func status(
        enrollment: DeviceStatus.Enrollment?, regionStates: [BeaconRegion: RegionState] = [:],
        telemetryLimit: Int = 200
    ) throws -> DeviceStatus {
        let engine = engine
        var presence: [SiteBeacon: SitePresence.Status] = [:]
        for site in engine.trackedSites { presence[site] = engine.status(of: site) }
        let telemetry = try store.telemetry(limit: telemetryLimit)
        return DeviceStatus(
            now: now(), enrollment: enrollment, sites: engine.configuration.sites,
            proximityUUID: engine.configuration.proximityUUID, presence: presence, permissions: engine.permissions,
            lastUpload: engine.lastUpload, outbox: try store.counts(), events: try store.entries(),
            telemetry: telemetry, regionStates: regionStates,
            monitoredRegions: engine.monitoredRegions, isRanging: engine.isRanging,
            ledger: try store.ledgerReceiptState())
    }
}
