import AttendanceModels
import Foundation

/// The simulated world (`attendance simulate --world FILE`): sites and their radio, the people,
/// what iOS does, and the network. Every field has a default (the built-in world, described in
/// docs/SIMULATOR.md); a file sets only what it changes, and an unknown field is an error naming it.
/// Times of day are hours since midnight; durations carry their unit in their name.
public struct WorldSpec: Hashable, Sendable, Codable {
    public var sites: [SiteSpec] = SiteSpec.defaults
    public var people = PeopleSpec()
    public var iOS = IOSSpec()
    public var network = NetworkSpec()
    public var energy = EnergySpec()

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case sites, people, iOS, network, energy }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = WorldSpec()
        sites = try c.value(.sites, or: d.sites)
        people = try c.value(.people, or: d.people)
        iOS = try c.value(.iOS, or: d.iOS)
        network = try c.value(.network, or: d.network)
        energy = try c.value(.energy, or: d.energy)
    }
}

/// One site: where it is (metres, in one plane shared by all sites, so neighbours hear each
/// other), the zone that counts as "on site" for the ground truth, its beacons and its radio.
public struct SiteSpec: Hashable, Sendable, Codable {
    public var id: String
    public var major: UInt16
    public var uuid: String = SiteBeacon.defaultUUID.uuidString
    public var originXMeters: Double
    public var originYMeters: Double
    public var zoneWidthMeters: Double
    public var zoneDepthMeters: Double
    /// Positions relative to the site's origin.
    public var beacons: [SimulatedBeacon]
    /// Beacons installed later on a survey's advice (`attendance survey-world`). Desks are laid out
    /// from `beacons` alone, so a surveyed world seats the same people at the same desks.
    public var addedBeacons: [SimulatedBeacon] = []
    public var radio = RadioParameters()

    /// Every beacon that transmits: `beacons`, then `addedBeacons`.
    public var installedBeacons: [SimulatedBeacon] { beacons + addedBeacons }

    public init(id: String, major: UInt16, originXMeters: Double, originYMeters: Double, zoneWidthMeters: Double, zoneDepthMeters: Double,
                beacons: [SimulatedBeacon], radio: RadioParameters = RadioParameters()) {
        self.id = id
        self.major = major
        self.originXMeters = originXMeters
        self.originYMeters = originYMeters
        self.zoneWidthMeters = zoneWidthMeters
        self.zoneDepthMeters = zoneDepthMeters
        self.beacons = beacons
        self.radio = radio
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, major, uuid, originXMeters, originYMeters, zoneWidthMeters, zoneDepthMeters, beacons, addedBeacons, radio
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        major = try c.decode(UInt16.self, forKey: .major)
        uuid = try c.value(.uuid, or: SiteBeacon.defaultUUID.uuidString)
        originXMeters = try c.value(.originXMeters, or: 0)
        originYMeters = try c.value(.originYMeters, or: 0)
        zoneWidthMeters = try c.decode(Double.self, forKey: .zoneWidthMeters)
        zoneDepthMeters = try c.decode(Double.self, forKey: .zoneDepthMeters)
        beacons = try c.decode([SimulatedBeacon].self, forKey: .beacons)
        addedBeacons = try c.value(.addedBeacons, or: [])
        radio = try c.value(.radio, or: RadioParameters())
    }

    /// The built-in world: an office (HQ) with its annex next door on the same UUID (heard through
    /// the wall), and a cluttered warehouse far away.
    public static let defaults: [SiteSpec] = [
        SiteSpec(id: "hq", major: 1, originXMeters: 0, originYMeters: 0, zoneWidthMeters: 40, zoneDepthMeters: 25,
                 beacons: [SimulatedBeacon(minor: 1, xMeters: 5, yMeters: 12.5, advertisingIntervalMilliseconds: 350),
                           SimulatedBeacon(minor: 2, xMeters: 20, yMeters: 12.5, advertisingIntervalMilliseconds: 350),
                           SimulatedBeacon(minor: 3, xMeters: 35, yMeters: 12.5, advertisingIntervalMilliseconds: 900, measuredPowerDBm: -62)],
                 radio: RadioParameters(pathLossExponent: 2.7, shadowingSigmaDB: 6)),
        SiteSpec(id: "annex", major: 2, originXMeters: 45, originYMeters: 0, zoneWidthMeters: 15, zoneDepthMeters: 15,
                 beacons: [SimulatedBeacon(minor: 1, xMeters: 7, yMeters: 7, advertisingIntervalMilliseconds: 500)],
                 radio: RadioParameters(pathLossExponent: 2.4, shadowingSigmaDB: 5)),
        SiteSpec(id: "warehouse", major: 3, originXMeters: 2_000, originYMeters: 0, zoneWidthMeters: 60, zoneDepthMeters: 40,
                 beacons: [SimulatedBeacon(minor: 1, xMeters: 10, yMeters: 20, advertisingIntervalMilliseconds: 1_000),
                           SimulatedBeacon(minor: 2, xMeters: 50, yMeters: 20, advertisingIntervalMilliseconds: 1_000)],
                 radio: RadioParameters(pathLossExponent: 3.3, shadowingSigmaDB: 8)),
    ]
}

extension RadioParameters {
    public init(pathLossExponent: Double, shadowingSigmaDB: Double) {
        self.init()
        self.pathLossExponent = pathLossExponent
        self.shadowingSigmaDB = shadowingSigmaDB
    }
}

/// Who works where and how their days go.
public struct PeopleSpec: Hashable, Sendable, Codable {
    /// Day shift arrival: normal around this hour.
    public var arrivalMeanHour: Double = 8.5
    public var arrivalSigmaMinutes: Double = 40
    /// Time on site, uniform in this range.
    public var shiftHoursRange: ClosedRange<Double> = 7.5...9.5
    /// Share of employees on night shifts (22:00 ± 30 min, across midnight).
    public var nightShiftFraction: Double = 0.1
    /// Per employee-day.
    public var dayOffProbability: Double = 0.15
    /// Lunch outside the zone, per employee-day, and how long.
    public var lunchOutsideProbability: Double = 0.4
    public var lunchMinutesRange: ClosedRange<Double> = 30...60
    /// Short trips out of coverage (restroom, stairwell): how many a day on average, how long each.
    public var shortTripsPerDayMean: Double = 4
    public var shortTripSecondsRange: ClosedRange<Double> = 5...300
    /// Desks are placed at a distance from the nearest beacon in this range; `edgeDeskFraction` of
    /// them at the edge of coverage instead.
    public var deskDistanceMetersRange: ClosedRange<Double> = 2...10
    public var edgeDeskFraction: Double = 0.15
    public var edgeDeskDistanceMetersRange: ClosedRange<Double> = 12...18
    /// Per employee-day: passing within 10–20 m of a site they do not enter (a walk-by).
    public var walkByProbability: Double = 0.25
    public var walkByDistanceMetersRange: ClosedRange<Double> = 10...20
    public var walkBySecondsRange: ClosedRange<Double> = 20...120
    /// Share of the day the phone spends in a pocket or behind its owner (body loss applies).
    public var pocketFraction: Double = 0.5

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case arrivalMeanHour, arrivalSigmaMinutes, shiftHoursRange, nightShiftFraction, dayOffProbability, lunchOutsideProbability,
             lunchMinutesRange, shortTripsPerDayMean, shortTripSecondsRange, deskDistanceMetersRange, edgeDeskFraction,
             edgeDeskDistanceMetersRange, walkByProbability, walkByDistanceMetersRange, walkBySecondsRange, pocketFraction
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PeopleSpec()
        arrivalMeanHour = try c.value(.arrivalMeanHour, or: d.arrivalMeanHour)
        arrivalSigmaMinutes = try c.value(.arrivalSigmaMinutes, or: d.arrivalSigmaMinutes)
        shiftHoursRange = try c.value(.shiftHoursRange, or: d.shiftHoursRange)
        nightShiftFraction = try c.value(.nightShiftFraction, or: d.nightShiftFraction)
        dayOffProbability = try c.value(.dayOffProbability, or: d.dayOffProbability)
        lunchOutsideProbability = try c.value(.lunchOutsideProbability, or: d.lunchOutsideProbability)
        lunchMinutesRange = try c.value(.lunchMinutesRange, or: d.lunchMinutesRange)
        shortTripsPerDayMean = try c.value(.shortTripsPerDayMean, or: d.shortTripsPerDayMean)
        shortTripSecondsRange = try c.value(.shortTripSecondsRange, or: d.shortTripSecondsRange)
        deskDistanceMetersRange = try c.value(.deskDistanceMetersRange, or: d.deskDistanceMetersRange)
        edgeDeskFraction = try c.value(.edgeDeskFraction, or: d.edgeDeskFraction)
        edgeDeskDistanceMetersRange = try c.value(.edgeDeskDistanceMetersRange, or: d.edgeDeskDistanceMetersRange)
        walkByProbability = try c.value(.walkByProbability, or: d.walkByProbability)
        walkByDistanceMetersRange = try c.value(.walkByDistanceMetersRange, or: d.walkByDistanceMetersRange)
        walkBySecondsRange = try c.value(.walkBySecondsRange, or: d.walkBySecondsRange)
        pocketFraction = try c.value(.pocketFraction, or: d.pocketFraction)
    }
}

/// What iOS does; the defaults cite the sources listed in docs/ARCHITECTURE.md, "What iOS does".
public struct IOSSpec: Hashable, Sendable, Codable {
    /// Region entry callback latency: log-normal around this median ...
    public var entryLatencyMedianSeconds: Double = 4
    /// ... and, with this probability (locked phone, busy radio), a long tail up to the maximum.
    public var entryLatencyTailProbability: Double = 0.1
    public var entryLatencyTailMaxSeconds: Double = 180
    /// Region exit comes about this long after the last packet, with a tail of minutes.
    public var exitDelaySeconds: Double = 30
    public var exitDelayTailProbability: Double = 0.05
    public var exitDelayTailMaxSeconds: Double = 300
    /// Background execution after a region event, and with a background task.
    public var backgroundSecondsPerEvent: Double = 10
    public var backgroundTaskSeconds: Double = 30
    /// `notifyEntryStateOnDisplay`: state callbacks when the screen wakes, per day.
    public var screenWakesPerDay: Double = 40
    /// Terminated by the system (relaunched by the next region event), per device-day.
    public var terminationsPerDay: Double = 0.5
    /// Force-quit by the user (no relaunch until the next manual open), per device-day.
    public var forceQuitProbabilityPerDay: Double = 0.02
    /// Rebooted, per device-day.
    public var rebootProbabilityPerDay: Double = 0.03
    /// Employees who denied location, or granted only When In Use.
    public var deniedFraction: Double = 0.02
    public var whenInUseOnlyFraction: Double = 0.03
    /// The employee opens the app (07:00–22:00), per day: the only relaunch after a force-quit.
    public var manualOpensPerDay: Double = 2
    /// A reminder the app scheduled is seen at the next screen wake after it is shown, and
    /// tapped (opening the app) with this probability.
    public var reminderTapProbability: Double = 0.5
    /// Spells in which the phone hears no beacon at all (`ScanSilences`, calibrated against
    /// recordings of real iPhones: docs/SIMULATOR.md): how many start per hour, and their
    /// shortest, mean and longest durations.
    public var scanSilencesPerHour: Double = 52
    public var scanSilenceMinSeconds: Double = 2
    public var scanSilenceMeanSeconds: Double = 6
    public var scanSilenceMaxSeconds: Double = 34

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case entryLatencyMedianSeconds, entryLatencyTailProbability, entryLatencyTailMaxSeconds, exitDelaySeconds, exitDelayTailProbability,
             exitDelayTailMaxSeconds, backgroundSecondsPerEvent, backgroundTaskSeconds, screenWakesPerDay, terminationsPerDay,
             forceQuitProbabilityPerDay, rebootProbabilityPerDay, deniedFraction, whenInUseOnlyFraction, manualOpensPerDay, reminderTapProbability,
             scanSilencesPerHour, scanSilenceMinSeconds, scanSilenceMeanSeconds, scanSilenceMaxSeconds
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = IOSSpec()
        entryLatencyMedianSeconds = try c.value(.entryLatencyMedianSeconds, or: d.entryLatencyMedianSeconds)
        entryLatencyTailProbability = try c.value(.entryLatencyTailProbability, or: d.entryLatencyTailProbability)
        entryLatencyTailMaxSeconds = try c.value(.entryLatencyTailMaxSeconds, or: d.entryLatencyTailMaxSeconds)
        exitDelaySeconds = try c.value(.exitDelaySeconds, or: d.exitDelaySeconds)
        exitDelayTailProbability = try c.value(.exitDelayTailProbability, or: d.exitDelayTailProbability)
        exitDelayTailMaxSeconds = try c.value(.exitDelayTailMaxSeconds, or: d.exitDelayTailMaxSeconds)
        backgroundSecondsPerEvent = try c.value(.backgroundSecondsPerEvent, or: d.backgroundSecondsPerEvent)
        backgroundTaskSeconds = try c.value(.backgroundTaskSeconds, or: d.backgroundTaskSeconds)
        screenWakesPerDay = try c.value(.screenWakesPerDay, or: d.screenWakesPerDay)
        terminationsPerDay = try c.value(.terminationsPerDay, or: d.terminationsPerDay)
        forceQuitProbabilityPerDay = try c.value(.forceQuitProbabilityPerDay, or: d.forceQuitProbabilityPerDay)
        rebootProbabilityPerDay = try c.value(.rebootProbabilityPerDay, or: d.rebootProbabilityPerDay)
        deniedFraction = try c.value(.deniedFraction, or: d.deniedFraction)
        whenInUseOnlyFraction = try c.value(.whenInUseOnlyFraction, or: d.whenInUseOnlyFraction)
        manualOpensPerDay = try c.value(.manualOpensPerDay, or: d.manualOpensPerDay)
        reminderTapProbability = try c.value(.reminderTapProbability, or: d.reminderTapProbability)
        scanSilencesPerHour = try c.value(.scanSilencesPerHour, or: d.scanSilencesPerHour)
        scanSilenceMinSeconds = try c.value(.scanSilenceMinSeconds, or: d.scanSilenceMinSeconds)
        scanSilenceMeanSeconds = try c.value(.scanSilenceMeanSeconds, or: d.scanSilenceMeanSeconds)
        scanSilenceMaxSeconds = try c.value(.scanSilenceMaxSeconds, or: d.scanSilenceMaxSeconds)
    }
}

/// The network between the phones and the server.
public struct NetworkSpec: Hashable, Sendable, Codable {
    public var latencyMillisecondsRange: ClosedRange<Double> = 50...800
    /// A request fails (timeout, reset) with this probability.
    public var failureProbability: Double = 0.05
    /// Server restarts per simulated day (requests in flight fail; nothing committed is lost).
    public var serverRestartsPerDay: Double = 1
    /// Per device-day, an outage of up to `outageHoursMax` hours starts (tunnels, roaming, flights).
    public var outageProbabilityPerDay: Double = 0.02
    public var outageHoursMax: Double = 72

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case latencyMillisecondsRange, failureProbability, serverRestartsPerDay, outageProbabilityPerDay, outageHoursMax
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = NetworkSpec()
        latencyMillisecondsRange = try c.value(.latencyMillisecondsRange, or: d.latencyMillisecondsRange)
        failureProbability = try c.value(.failureProbability, or: d.failureProbability)
        serverRestartsPerDay = try c.value(.serverRestartsPerDay, or: d.serverRestartsPerDay)
        outageProbabilityPerDay = try c.value(.outageProbabilityPerDay, or: d.outageProbabilityPerDay)
        outageHoursMax = try c.value(.outageHoursMax, or: d.outageHoursMax)
    }
}

extension WorldSpec {
    /// Every value that can't describe a world, as "'field' is value; expected …".
    public func validationErrors() -> [String] {
        var errors = energy.validationErrors()
        func probability(_ name: String, _ value: Double) {
            if !(0...1).contains(value) { errors.append("'\(name)' is \(value); expected a probability from 0 to 1") }
        }
        func positive(_ name: String, _ range: ClosedRange<Double>) {
            if range.lowerBound < 0 { errors.append("'\(name)' is \(range); expected a range of values ≥ 0") }
        }
        if sites.isEmpty { errors.append("'sites' is empty; expected at least one site") }
        for (index, site) in sites.enumerated() {
            if UUID(uuidString: site.uuid) == nil { errors.append("'sites[\(index)].uuid' is '\(site.uuid)'; expected a UUID") }
            if site.beacons.isEmpty { errors.append("'sites[\(index)].beacons' is empty; expected at least one beacon") }
            if !(1.5...5).contains(site.radio.pathLossExponent) {
                errors.append("'sites[\(index)].radio.pathLossExponent' is \(site.radio.pathLossExponent); expected 1.5 to 5")
            }
            if !(site.radio.shadowingCorrelationSeconds > 0) || !(site.radio.shadowingDecorrelationMeters > 0) {
                errors.append("'sites[\(index)].radio' shadowing correlation is \(site.radio.shadowingCorrelationSeconds) s and "
                    + "\(site.radio.shadowingDecorrelationMeters) m; expected both > 0")
            }
            if !(site.radio.fastNoiseSigmaDB >= 0) {
                errors.append("'sites[\(index)].radio.fastNoiseSigmaDB' is \(site.radio.fastNoiseSigmaDB); expected ≥ 0")
            }
            if site.zoneWidthMeters <= 0 || site.zoneDepthMeters <= 0 {
                errors.append("'sites[\(index)]' zone is \(site.zoneWidthMeters) × \(site.zoneDepthMeters) m; expected positive sizes")
            }
            let minors = site.installedBeacons.map(\.minor)
            if Set(minors).count != minors.count {
                errors.append("'sites[\(index)]' beacons and addedBeacons have minors \(minors); expected each minor once")
            }
            for beacon in site.installedBeacons where beacon.advertisingIntervalMilliseconds < 20 || beacon.advertisingIntervalMilliseconds > 10_000 {
                errors.append("'sites[\(index)].beacons' minor \(beacon.minor) advertises every \(beacon.advertisingIntervalMilliseconds) ms; expected 20 to 10000")
            }
        }
        if Set(sites.map(\.id)).count != sites.count { errors.append("'sites' has duplicate ids; expected each id once") }
        probability("people.nightShiftFraction", people.nightShiftFraction)
        probability("people.dayOffProbability", people.dayOffProbability)
        probability("people.lunchOutsideProbability", people.lunchOutsideProbability)
        probability("people.edgeDeskFraction", people.edgeDeskFraction)
        probability("people.walkByProbability", people.walkByProbability)
        probability("people.pocketFraction", people.pocketFraction)
        probability("iOS.entryLatencyTailProbability", iOS.entryLatencyTailProbability)
        probability("iOS.exitDelayTailProbability", iOS.exitDelayTailProbability)
        probability("iOS.forceQuitProbabilityPerDay", iOS.forceQuitProbabilityPerDay)
        probability("iOS.rebootProbabilityPerDay", iOS.rebootProbabilityPerDay)
        probability("iOS.deniedFraction", iOS.deniedFraction)
        probability("iOS.whenInUseOnlyFraction", iOS.whenInUseOnlyFraction)
        probability("iOS.reminderTapProbability", iOS.reminderTapProbability)
        probability("network.failureProbability", network.failureProbability)
        probability("network.outageProbabilityPerDay", network.outageProbabilityPerDay)
        positive("people.shiftHoursRange", people.shiftHoursRange)
        positive("people.lunchMinutesRange", people.lunchMinutesRange)
        positive("people.shortTripSecondsRange", people.shortTripSecondsRange)
        positive("network.latencyMillisecondsRange", network.latencyMillisecondsRange)
        if !(0...ScanSilences.maxPerHour).contains(iOS.scanSilencesPerHour) {
            errors.append("'iOS.scanSilencesPerHour' is \(iOS.scanSilencesPerHour); expected 0 to \(Int(ScanSilences.maxPerHour))")
        }
        if !(iOS.scanSilenceMinSeconds >= 0 && iOS.scanSilenceMinSeconds <= iOS.scanSilenceMeanSeconds
            && iOS.scanSilenceMeanSeconds <= iOS.scanSilenceMaxSeconds && iOS.scanSilenceMaxSeconds <= 600) {
            errors.append("'iOS.scanSilence…Seconds' are min \(iOS.scanSilenceMinSeconds), mean \(iOS.scanSilenceMeanSeconds), "
                + "max \(iOS.scanSilenceMaxSeconds); expected 0 ≤ min ≤ mean ≤ max ≤ 600")
        }
        if !(0..<24).contains(people.arrivalMeanHour) { errors.append("'people.arrivalMeanHour' is \(people.arrivalMeanHour); expected 0 to 24") }
        return errors
    }
}
