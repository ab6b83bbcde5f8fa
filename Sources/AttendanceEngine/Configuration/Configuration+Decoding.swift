import AttendanceModels
import Foundation

/// A configuration value that was not acceptable: which field, which value, what was expected.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let field: String
    public let value: String
    public let expected: String

    public init(field: String, value: String, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    public var description: String { "configuration field '\(field)' is \(value); expected \(expected)" }
}

extension Configuration {
    /// The keys a configuration may use: its coding keys, one per property.
    public static let knownKeys: [String] = CodingKeys.allCases.map(\.stringValue).sorted()

    /// A configuration file's, or a snapshot's, values over the defaults: a key left out keeps its
    /// default (a snapshot written before a key was added restores with it), and a key that is not
    /// a property is an error naming it, so a typo never silently falls back to a default. A key
    /// given as `null` is a wrong type, not a default.
    public init(from decoder: any Decoder) throws {
        let given = try decoder.container(keyedBy: AnyConfigurationKey.self)
        let keys = given.allKeys.map(\.stringValue).sorted()
        if let unknown = keys.first(where: { CodingKeys(rawValue: $0) == nil }) {
            throw ConfigurationError(
                field: (decoder.codingPath.map(\.stringValue) + [unknown]).joined(separator: "."), value: "present",
                expected: "one of the known keys: \(Self.knownKeys.joined(separator: ", "))")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Configuration()
        // Not `decodeIfPresent`, which takes `null` for absent: a key given is meant to be used.
        func value<Value: Decodable>(_ key: CodingKeys, _ fallback: Value) throws -> Value {
            try container.contains(key) ? container.decode(Value.self, forKey: key) : fallback
        }
        userID = try value(.userID, defaults.userID)
        deviceID = try value(.deviceID, defaults.deviceID)
        proximityUUID = try value(.proximityUUID, defaults.proximityUUID)
        sites = try value(.sites, defaults.sites)
        regionMonitoring = try value(.regionMonitoring, defaults.regionMonitoring)
        rangingWindowMaxSeconds = try value(.rangingWindowMaxSeconds, defaults.rangingWindowMaxSeconds)
        earlyConfirmMinSamples = try value(.earlyConfirmMinSamples, defaults.earlyConfirmMinSamples)
        earlyConfirmMaxStdevDB = try value(.earlyConfirmMaxStdevDB, defaults.earlyConfirmMaxStdevDB)
        earlyConfirmMinMedianDBm = try value(.earlyConfirmMinMedianDBm, defaults.earlyConfirmMinMedianDBm)
        windowEndConfirmMinMedianDBm = try value(.windowEndConfirmMinMedianDBm, defaults.windowEndConfirmMinMedianDBm)
        walkingConfirmMinMedianDBm = try value(.walkingConfirmMinMedianDBm, defaults.walkingConfirmMinMedianDBm)
        walkingConfirmNeedsStop = try value(.walkingConfirmNeedsStop, defaults.walkingConfirmNeedsStop)
        rangingRetryCooldownSeconds = try value(.rangingRetryCooldownSeconds, defaults.rangingRetryCooldownSeconds)
        followUpWindows = try value(.followUpWindows, defaults.followUpWindows)
        dwellConfirmSeconds = try value(.dwellConfirmSeconds, defaults.dwellConfirmSeconds)
        dwellMinMedianDBm = try value(.dwellMinMedianDBm, defaults.dwellMinMedianDBm)
        dwellMinSupportFraction = try value(.dwellMinSupportFraction, defaults.dwellMinSupportFraction)
        dwellContestedSupportFraction = try value(
            .dwellContestedSupportFraction, defaults.dwellContestedSupportFraction)
        dwellContinuousSeconds = try value(.dwellContinuousSeconds, defaults.dwellContinuousSeconds)
        backgroundLocationMaxSeconds = try value(.backgroundLocationMaxSeconds, defaults.backgroundLocationMaxSeconds)
        followUpWithoutEvidenceWindows = try value(
            .followUpWithoutEvidenceWindows, defaults.followUpWithoutEvidenceWindows)
        followUpWithoutEvidenceElsewhereWindows = try value(
            .followUpWithoutEvidenceElsewhereWindows, defaults.followUpWithoutEvidenceElsewhereWindows)
        usualDeskToleranceDB = try value(.usualDeskToleranceDB, defaults.usualDeskToleranceDB)
        usualDeskMinStayMinutes = try value(.usualDeskMinStayMinutes, defaults.usualDeskMinStayMinutes)
        motionLookbackMinutes = try value(.motionLookbackMinutes, defaults.motionLookbackMinutes)
        walkingMinSteps = try value(.walkingMinSteps, defaults.walkingMinSteps)
        softExitGraceSeconds = try value(.softExitGraceSeconds, defaults.softExitGraceSeconds)
        mergeWindowSeconds = try value(.mergeWindowSeconds, defaults.mergeWindowSeconds)
        regionExitDelaySeconds = try value(.regionExitDelaySeconds, defaults.regionExitDelaySeconds)
        departureMotionLookbackMinutes = try value(
            .departureMotionLookbackMinutes, defaults.departureMotionLookbackMinutes)
        stayedPutHoldsSession = try value(.stayedPutHoldsSession, defaults.stayedPutHoldsSession)
        stayedPutRangingSeconds = try value(.stayedPutRangingSeconds, defaults.stayedPutRangingSeconds)
        heartbeatIntervalSeconds = try value(.heartbeatIntervalSeconds, defaults.heartbeatIntervalSeconds)
        heartbeatHoldSeconds = try value(.heartbeatHoldSeconds, defaults.heartbeatHoldSeconds)
        txPowerDBm = try value(.txPowerDBm, defaults.txPowerDBm)
        pathLossExponent = try value(.pathLossExponent, defaults.pathLossExponent)
        beaconCalibrations = try value(.beaconCalibrations, defaults.beaconCalibrations)
        resumeReminderHours = try value(.resumeReminderHours, defaults.resumeReminderHours)
        resumeReminderCount = try value(.resumeReminderCount, defaults.resumeReminderCount)
        arrivalReminders = try value(.arrivalReminders, defaults.arrivalReminders)
        manualBackdateMaxMinutes = try value(.manualBackdateMaxMinutes, defaults.manualBackdateMaxMinutes)
        manualPromptMinIntervalSeconds = try value(
            .manualPromptMinIntervalSeconds, defaults.manualPromptMinIntervalSeconds)
    }

    /// Every rule the values must satisfy, as errors; empty when the configuration is usable.
    public func validationErrors() -> [ConfigurationError] {
        var errors: [ConfigurationError] = []
        func require(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { errors.append(ConfigurationError(field: field, value: "\(value)", expected: expected)) }
        }
        require(rangingWindowMaxSeconds > 0 && rangingWindowMaxSeconds <= 30, "rangingWindowMaxSeconds", rangingWindowMaxSeconds,
                "a number of seconds in (0, 30] (iOS background time is ~10 s, ~30 s with a background task)")
        require(earlyConfirmMinSamples >= 2, "earlyConfirmMinSamples", earlyConfirmMinSamples, "an integer ≥ 2 (a stdev needs two samples)")
        require(earlyConfirmMaxStdevDB > 0, "earlyConfirmMaxStdevDB", earlyConfirmMaxStdevDB, "a positive number of dB")
        for (field, value) in [("earlyConfirmMinMedianDBm", earlyConfirmMinMedianDBm), ("windowEndConfirmMinMedianDBm", windowEndConfirmMinMedianDBm),
                               ("txPowerDBm", txPowerDBm)] {
            require(value < 0 && value > -127, field, value, "a negative dBm value above -127")
        }
        require(walkingConfirmMinMedianDBm < 0 && walkingConfirmMinMedianDBm >= -127, "walkingConfirmMinMedianDBm", walkingConfirmMinMedianDBm,
                "a negative dBm value from -127 (-127: walking alone confirms, the first rule)")
        require(dwellConfirmSeconds >= 60, "dwellConfirmSeconds", dwellConfirmSeconds, "seconds ≥ 60 (a walk-by lasts up to minutes)")
        require(dwellContinuousSeconds >= 60 && dwellContinuousSeconds <= dwellConfirmSeconds, "dwellContinuousSeconds", dwellContinuousSeconds,
                "seconds from 60 to dwellConfirmSeconds (\(dwellConfirmSeconds))")
        require(backgroundLocationMaxSeconds >= 0 && backgroundLocationMaxSeconds <= 3_600, "backgroundLocationMaxSeconds", backgroundLocationMaxSeconds,
                "seconds from 0 (off) to 3600")
        require(resumeReminderHours == 0 || (resumeReminderHours >= 1 && resumeReminderHours <= 72), "resumeReminderHours", resumeReminderHours,
                "0 (off) or hours from 1 to 72")
        require(manualBackdateMaxMinutes >= 0 && manualBackdateMaxMinutes <= 720, "manualBackdateMaxMinutes", manualBackdateMaxMinutes,
                "minutes from 0 (only now) to 720")
        require((1...8).contains(resumeReminderCount), "resumeReminderCount", resumeReminderCount, "an integer from 1 to 8")
        require(dwellMinSupportFraction > 0 && dwellMinSupportFraction <= 1, "dwellMinSupportFraction", dwellMinSupportFraction, "a share in (0, 1]")
        require(dwellContestedSupportFraction > 0 && dwellContestedSupportFraction <= 1, "dwellContestedSupportFraction", dwellContestedSupportFraction,
                "a share in (0, 1]")
        require(dwellMinMedianDBm < 0 && dwellMinMedianDBm >= -127, "dwellMinMedianDBm", dwellMinMedianDBm, "a negative dBm value from -127")
        require((0...10).contains(followUpWindows), "followUpWindows", followUpWindows, "an integer from 0 to 10")
        require((1...100).contains(followUpWithoutEvidenceWindows), "followUpWithoutEvidenceWindows", followUpWithoutEvidenceWindows,
                "an integer from 1 to 100")
        require((1...100).contains(followUpWithoutEvidenceElsewhereWindows), "followUpWithoutEvidenceElsewhereWindows",
                followUpWithoutEvidenceElsewhereWindows, "an integer from 1 to 100")
        require(rangingRetryCooldownSeconds >= 0, "rangingRetryCooldownSeconds", rangingRetryCooldownSeconds, "seconds ≥ 0")
        require((0...20).contains(usualDeskToleranceDB), "usualDeskToleranceDB", usualDeskToleranceDB, "dB from 0 (off) to 20")
        require(usualDeskMinStayMinutes >= 10 && usualDeskMinStayMinutes <= 1_440, "usualDeskMinStayMinutes", usualDeskMinStayMinutes,
                "minutes from 10 to 1440 (a walk-by never stays that long)")
        require(motionLookbackMinutes > 0, "motionLookbackMinutes", motionLookbackMinutes, "minutes > 0")
        require(stayedPutRangingSeconds >= 0 && stayedPutRangingSeconds <= 60, "stayedPutRangingSeconds",
                stayedPutRangingSeconds, "seconds from 0 (not ranged) to 60")
        require(walkingMinSteps >= 1, "walkingMinSteps", walkingMinSteps, "an integer ≥ 1")
        require(softExitGraceSeconds >= 10, "softExitGraceSeconds", softExitGraceSeconds,
                "seconds ≥ 10 (dropouts shorter than 10 s must never check out)")
        require(mergeWindowSeconds >= softExitGraceSeconds, "mergeWindowSeconds", mergeWindowSeconds,
                "seconds ≥ softExitGraceSeconds (\(softExitGraceSeconds))")
        require(departureMotionLookbackMinutes >= 0 && departureMotionLookbackMinutes <= 60, "departureMotionLookbackMinutes",
                departureMotionLookbackMinutes, "minutes from 0 (off) to 60")
        require(regionExitDelaySeconds >= 0, "regionExitDelaySeconds", regionExitDelaySeconds, "seconds ≥ 0")
        require(heartbeatIntervalSeconds >= 60, "heartbeatIntervalSeconds", heartbeatIntervalSeconds, "seconds ≥ 60 (the data budget)")
        require((0...14_400).contains(heartbeatHoldSeconds), "heartbeatHoldSeconds", heartbeatHoldSeconds,
                "seconds from 0 (send at once) to 14400 (4 h)")
        require(pathLossExponent > 0 && pathLossExponent <= 6, "pathLossExponent", pathLossExponent, "a number in (0, 6]")
        require(manualPromptMinIntervalSeconds >= 0, "manualPromptMinIntervalSeconds", manualPromptMinIntervalSeconds, "seconds ≥ 0")
        var seen = Set<SiteBeacon>()
        for (index, site) in sites.enumerated() {
            let beacon = site.beacon(defaultUUID: proximityUUID)
            require(seen.insert(beacon).inserted, "sites[\(index)].major", site.major, "a site (uuid + major) listed once")
            if let fence = site.geofence {
                require((-90...90).contains(fence.latitude), "sites[\(index)].geofence.latitude", fence.latitude, "degrees from -90 to 90")
                require((-180...180).contains(fence.longitude), "sites[\(index)].geofence.longitude", fence.longitude, "degrees from -180 to 180")
                require(fence.radiusMeters > 0 && fence.radiusMeters <= 100_000, "sites[\(index)].geofence.radiusMeters", fence.radiusMeters,
                        "metres in (0, 100000]")
            }
        }
        for (index, calibration) in beaconCalibrations.enumerated() {
            require(calibration.txPowerDBm < 0 && calibration.txPowerDBm > -127, "beaconCalibrations[\(index)].txPowerDBm",
                    calibration.txPowerDBm, "a negative dBm value above -127")
        }
        return errors
    }

    /// Decodes a JSON configuration (a file for `attendance replay` or `simulate`, or the one a trace
    /// recorded) and validates it. Missing keys keep their defaults; an unknown key is an error
    /// naming it (`init(from:)`).
    public static func decode(json data: Data) throws -> Configuration {
        let configuration: Configuration
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: data)
        } catch let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context) {
            guard let field = context.codingPath.map(\.stringValue).joined(separator: ".").nonEmpty else {
                throw notAnObject
            }
            throw ConfigurationError(
                field: field, value: "of the wrong type",
                expected: "a value of type \(type) (\(context.debugDescription))")
        } catch let DecodingError.dataCorrupted(context) {
            // No place: the document is not JSON at all.
            guard let field = context.codingPath.map(\.stringValue).joined(separator: ".").nonEmpty else {
                throw notAnObject
            }
            throw ConfigurationError(field: field, value: "unreadable", expected: context.debugDescription)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ConfigurationError(
                field: (context.codingPath + [key]).map(\.stringValue).joined(separator: "."), value: "missing",
                expected: "a value for this required field")
        }
        if let first = configuration.validationErrors().first { throw first }
        return configuration
    }

    private static let notAnObject = ConfigurationError(
        field: "(document)", value: "not a JSON object",
        expected: #"a JSON object such as {"softExitGraceSeconds": 120}"#)

    /// Whether the engine tracks `site`: a configured site, or, with no sites configured, any major
    /// of `proximityUUID`.
    func allows(_ site: SiteBeacon) -> Bool {
        sites.isEmpty ? site.uuid == proximityUUID : sites.contains { $0.beacon(defaultUUID: proximityUUID) == site }
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

/// Any key of a JSON object, to find the keys a configuration does not know.
private struct AnyConfigurationKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

