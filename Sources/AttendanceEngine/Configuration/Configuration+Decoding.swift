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
    /// The keys a configuration file may use: those of the encoded defaults.
    public static let knownKeys: [String] = ((try? overDefaults([:])) ?? [:]).keys.sorted()

    /// `values` (a file's, or an older snapshot's) laid over the defaults, as a JSON object: a key
    /// they lack keeps its default.
    static func overDefaults(_ values: [String: Any]) throws -> [String: Any] {
        var merged = (try JSONSerialization.jsonObject(with: JSONEncoder().encode(Configuration())) as? [String: Any]) ?? [:]
        merged.merge(values) { _, given in given }
        return merged
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
        require(rangingRetryCooldownSeconds >= 0, "rangingRetryCooldownSeconds", rangingRetryCooldownSeconds, "seconds ≥ 0")
        require(motionLookbackMinutes > 0, "motionLookbackMinutes", motionLookbackMinutes, "minutes > 0")
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

    /// Decodes a JSON configuration (a file, or the server's remote config) and validates it.
    /// Missing keys keep their defaults; an unknown key is an error naming it, so a typo never
    /// silently falls back to a default.
    public static func decode(json data: Data) throws -> Configuration {
        guard let given = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ConfigurationError(field: "(document)", value: "not a JSON object", expected: "a JSON object such as {\"softExitGraceSeconds\": 120}")
        }
        if let unknown = given.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw ConfigurationError(field: unknown, value: "present", expected: "one of the known keys: \(knownKeys.joined(separator: ", "))")
        }
        // The file's values laid over the defaults, then decoded with the types' own rules.
        let merged = try overDefaults(given)
        let configuration: Configuration
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: JSONSerialization.data(withJSONObject: merged))
        } catch let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context) {
            throw ConfigurationError(field: context.codingPath.map(\.stringValue).joined(separator: "."), value: "of the wrong type",
                                     expected: "a value of type \(type) (\(context.debugDescription))")
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError(field: context.codingPath.map(\.stringValue).joined(separator: ".").nonEmpty ?? "(document)",
                                     value: "unreadable", expected: context.debugDescription)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ConfigurationError(field: (context.codingPath + [key]).map(\.stringValue).joined(separator: "."), value: "missing",
                                     expected: "a value for this required field")
        }
        if let first = configuration.validationErrors().first { throw first }
        return configuration
    }

    /// Whether the engine tracks `site`: a configured site, or, with no sites configured, any major
    /// of `proximityUUID`.
    func allows(_ site: SiteBeacon) -> Bool {
        sites.isEmpty ? site.uuid == proximityUUID : sites.contains { $0.beacon(defaultUUID: proximityUUID) == site }
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

