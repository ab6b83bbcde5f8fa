import AttendanceEngine
import AttendanceModels
import Foundation

/// The contract's `DeviceConfig` as the engine's `Configuration`: the device's one mapping of the
/// remote configuration. The server sends the identity, the sites and the beacon calibrations;
/// every other engine setting keeps the device's default (docs/ENGINE.md).
enum RemoteConfiguration {
    /// The engine configuration `config` describes, validated. A value the engine can't hold (a UUID
    /// that doesn't parse, a major or minor outside 0…65535) or the first rule the result breaks
    /// (`validationErrors()`) is refused, naming the field as the answer spells it.
    static func configuration(
        _ config: Components.Schemas.DeviceConfig
    ) throws(ConfigurationError) -> AttendanceEngine.Configuration {
        var configuration = AttendanceEngine.Configuration()
        configuration.userID = UserID(config.userID)
        configuration.deviceID = DeviceID(config.deviceID)
        configuration.sites = []
        for (index, site) in config.sites.enumerated() {
            configuration.sites.append(
                SiteConfiguration(
                    siteID: SiteID(site.siteID), name: site.name, uuid: try uuid(site.uuid, "sites[\(index)].uuid"),
                    major: try uint16(site.major, "sites[\(index)].major"),
                    geofence: site.geofence.map {
                        Geofence(latitude: $0.latitude, longitude: $0.longitude, radiusMeters: $0.radiusMeters)
                    }))
        }
        configuration.beaconCalibrations = []
        for (index, calibration) in config.beaconCalibrations.enumerated() {
            let field = "beaconCalibrations[\(index)]"
            configuration.beaconCalibrations.append(
                BeaconCalibration(
                    uuid: try uuid(calibration.uuid, "\(field).uuid"),
                    major: try uint16(calibration.major, "\(field).major"),
                    minor: try uint16(calibration.minor, "\(field).minor"), txPowerDBm: calibration.txPowerDBm))
        }
        if let first = configuration.validationErrors().first { throw first }
        return configuration
    }

    private static func uuid(_ text: String, _ field: String) throws(ConfigurationError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw ConfigurationError(
                field: field, value: "'\(text)'", expected: "a UUID such as \(SiteBeacon.defaultUUID.uuidString)")
        }
        return uuid
    }

    private static func uint16(_ value: Int, _ field: String) throws(ConfigurationError) -> UInt16 {
        guard let exact = UInt16(exactly: value) else {
            throw ConfigurationError(field: field, value: "\(value)", expected: "an integer from 0 to 65535")
        }
        return exact
    }
}
