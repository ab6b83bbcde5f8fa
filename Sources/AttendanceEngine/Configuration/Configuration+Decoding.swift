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
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let knownKeys: Set<String> = [
        "userID", "deviceID", "proximityUUID", "sites", "regionMonitoring",
        "rangingWindowMaxSeconds", "earlyConfirmMinSamples", "earlyConfirmMaxStdevDB", "earlyConfirmMinMedianDBm",
        "windowEndConfirmMinMedianDBm", "walkingConfirmMinMedianDBm", "rangingRetryCooldownSeconds",
        "motionLookbackMinutes", "walkingMinSteps", "softExitGraceSeconds", "mergeWindowSeconds",
        "regionExitDelaySeconds", "heartbeatIntervalSeconds", "txPowerDBm", "pathLossExponent",
        "beaconCalibrations", "manualPromptMinIntervalSeconds",
    ]

    /// Missing keys keep their defaults; unknown keys are an error naming the key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !Self.knownKeys.contains(key.stringValue) {
            throw ConfigurationError(field: key.stringValue, value: "present", expected: "one of the known keys: \(Self.knownKeys.sorted().joined(separator: ", "))")
        }
        self.init()
        func read<T: Decodable>(_ name: String, into value: inout T) throws {
            if let decoded = try container.decodeIfPresent(T.self, forKey: AnyKey(name)) { value = decoded }
        }
        try read("userID", into: &userID)
        try read("deviceID", into: &deviceID)
        try read("proximityUUID", into: &proximityUUID)
        try read("sites", into: &sites)
        try read("regionMonitoring", into: &regionMonitoring)
        try read("rangingWindowMaxSeconds", into: &rangingWindowMaxSeconds)
        try read("earlyConfirmMinSamples", into: &earlyConfirmMinSamples)
        try read("earlyConfirmMaxStdevDB", into: &earlyConfirmMaxStdevDB)
        try read("earlyConfirmMinMedianDBm", into: &earlyConfirmMinMedianDBm)
        try read("windowEndConfirmMinMedianDBm", into: &windowEndConfirmMinMedianDBm)
        if container.contains(AnyKey("walkingConfirmMinMedianDBm")) {
            walkingConfirmMinMedianDBm = try container.decodeIfPresent(Double.self, forKey: AnyKey("walkingConfirmMinMedianDBm"))
        }
        try read("rangingRetryCooldownSeconds", into: &rangingRetryCooldownSeconds)
        try read("motionLookbackMinutes", into: &motionLookbackMinutes)
        try read("walkingMinSteps", into: &walkingMinSteps)
        try read("softExitGraceSeconds", into: &softExitGraceSeconds)
        try read("mergeWindowSeconds", into: &mergeWindowSeconds)
        try read("regionExitDelaySeconds", into: &regionExitDelaySeconds)
        try read("heartbeatIntervalSeconds", into: &heartbeatIntervalSeconds)
        try read("txPowerDBm", into: &txPowerDBm)
        try read("pathLossExponent", into: &pathLossExponent)
        try read("beaconCalibrations", into: &beaconCalibrations)
        try read("manualPromptMinIntervalSeconds", into: &manualPromptMinIntervalSeconds)
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
        if let floor = walkingConfirmMinMedianDBm {
            require(floor < 0 && floor > -127, "walkingConfirmMinMedianDBm", floor, "a negative dBm value above -127, or null")
        }
        require(rangingRetryCooldownSeconds >= 0, "rangingRetryCooldownSeconds", rangingRetryCooldownSeconds, "seconds ≥ 0")
        require(motionLookbackMinutes > 0, "motionLookbackMinutes", motionLookbackMinutes, "minutes > 0")
        require(walkingMinSteps >= 1, "walkingMinSteps", walkingMinSteps, "an integer ≥ 1")
        require(softExitGraceSeconds >= 10, "softExitGraceSeconds", softExitGraceSeconds,
                "seconds ≥ 10 (dropouts shorter than 10 s must never check out)")
        require(mergeWindowSeconds >= softExitGraceSeconds, "mergeWindowSeconds", mergeWindowSeconds,
                "seconds ≥ softExitGraceSeconds (\(softExitGraceSeconds))")
        require(regionExitDelaySeconds >= 0, "regionExitDelaySeconds", regionExitDelaySeconds, "seconds ≥ 0")
        require(heartbeatIntervalSeconds >= 60, "heartbeatIntervalSeconds", heartbeatIntervalSeconds, "seconds ≥ 60 (the data budget)")
        require(pathLossExponent > 0 && pathLossExponent <= 6, "pathLossExponent", pathLossExponent, "a number in (0, 6]")
        require(manualPromptMinIntervalSeconds >= 0, "manualPromptMinIntervalSeconds", manualPromptMinIntervalSeconds, "seconds ≥ 0")
        var seen = Set<SiteBeacon>()
        for (index, site) in sites.enumerated() {
            let beacon = site.beacon(defaultUUID: proximityUUID)
            require(seen.insert(beacon).inserted, "sites[\(index)].major", site.major, "a site (uuid + major) listed once")
        }
        for (index, calibration) in beaconCalibrations.enumerated() {
            require(calibration.txPowerDBm < 0 && calibration.txPowerDBm > -127, "beaconCalibrations[\(index)].txPowerDBm",
                    calibration.txPowerDBm, "a negative dBm value above -127")
        }
        return errors
    }

    /// Decodes a JSON configuration file's bytes and validates it.
    public static func decode(json data: Data) throws -> Configuration {
        let configuration: Configuration
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: data)
        } catch let error as ConfigurationError {
            throw error
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

    /// The sites the engine tracks: configured ones, or `nil` when any major is accepted.
    var allowedSites: Set<SiteBeacon>? {
        sites.isEmpty ? nil : Set(sites.map { $0.beacon(defaultUUID: proximityUUID) })
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

extension Configuration {
    /// Written out in full, with an explicit `null` for `walkingConfirmMinMedianDBm`, so that
    /// encoding and decoding round-trip (an omitted key would decode to its default).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(userID, forKey: AnyKey("userID"))
        try container.encode(deviceID, forKey: AnyKey("deviceID"))
        try container.encode(proximityUUID, forKey: AnyKey("proximityUUID"))
        try container.encode(sites, forKey: AnyKey("sites"))
        try container.encode(regionMonitoring, forKey: AnyKey("regionMonitoring"))
        try container.encode(rangingWindowMaxSeconds, forKey: AnyKey("rangingWindowMaxSeconds"))
        try container.encode(earlyConfirmMinSamples, forKey: AnyKey("earlyConfirmMinSamples"))
        try container.encode(earlyConfirmMaxStdevDB, forKey: AnyKey("earlyConfirmMaxStdevDB"))
        try container.encode(earlyConfirmMinMedianDBm, forKey: AnyKey("earlyConfirmMinMedianDBm"))
        try container.encode(windowEndConfirmMinMedianDBm, forKey: AnyKey("windowEndConfirmMinMedianDBm"))
        try container.encode(walkingConfirmMinMedianDBm, forKey: AnyKey("walkingConfirmMinMedianDBm"))
        try container.encode(rangingRetryCooldownSeconds, forKey: AnyKey("rangingRetryCooldownSeconds"))
        try container.encode(motionLookbackMinutes, forKey: AnyKey("motionLookbackMinutes"))
        try container.encode(walkingMinSteps, forKey: AnyKey("walkingMinSteps"))
        try container.encode(softExitGraceSeconds, forKey: AnyKey("softExitGraceSeconds"))
        try container.encode(mergeWindowSeconds, forKey: AnyKey("mergeWindowSeconds"))
        try container.encode(regionExitDelaySeconds, forKey: AnyKey("regionExitDelaySeconds"))
        try container.encode(heartbeatIntervalSeconds, forKey: AnyKey("heartbeatIntervalSeconds"))
        try container.encode(txPowerDBm, forKey: AnyKey("txPowerDBm"))
        try container.encode(pathLossExponent, forKey: AnyKey("pathLossExponent"))
        try container.encode(beaconCalibrations, forKey: AnyKey("beaconCalibrations"))
        try container.encode(manualPromptMinIntervalSeconds, forKey: AnyKey("manualPromptMinIntervalSeconds"))
    }
}
