import AttendanceServer

/// A device's remote configuration, from `AdminService`'s `DeviceConfiguration` to the contract's
/// closed `DeviceConfig`: the server's one mapping of it, field by field. The keys are the engine
/// `Configuration`'s names, so the device maps them onto its defaults one to one.
enum DeviceConfigMapping {
    static func deviceConfig(_ configuration: DeviceConfiguration) -> Components.Schemas.DeviceConfig {
        .init(
            userID: configuration.userID, deviceID: configuration.deviceID,
            sites: configuration.sites.map(site), beaconCalibrations: configuration.beaconCalibrations.map(calibration))
    }

    static func site(_ site: DeviceConfiguration.Site) -> Components.Schemas.DeviceConfigSite {
        .init(
            siteID: site.siteID, name: site.name, uuid: site.uuid, major: site.major,
            geofence: site.geofence.map {
                .init(latitude: $0.latitude, longitude: $0.longitude, radiusMeters: $0.radiusMeters)
            })
    }

    static func calibration(
        _ calibration: DeviceConfiguration.BeaconCalibration
    ) -> Components.Schemas.DeviceConfigBeaconCalibration {
        .init(
            uuid: calibration.uuid, major: calibration.major, minor: calibration.minor,
            txPowerDBm: calibration.txPowerDBm)
    }
}
