import AttendanceModels
import AttendanceRules
import Foundation

/// What the server fills into a device's remote configuration (`GET /v1/device/config`, and the
/// answer to enrollment): the employee and device, every active site with its beacon and
/// geofence, and the measured transmit power of the beacons that have one. The engine's own
/// settings keep the device's defaults. Its keys are the engine `Configuration`'s names; the
/// contract's closed `DeviceConfig` carries it field by field (AttendanceHTTP's `DeviceConfigMapping`).
public struct DeviceConfiguration: Hashable, Sendable, Codable {
    public struct Site: Hashable, Sendable, Codable {
        public var siteID: String
        public var name: String
        public var uuid: String
        public var major: Int
        public var geofence: Geofence?
    }

    /// One beacon's transmit power at 1 m, as calibrated on site.
    public struct BeaconCalibration: Hashable, Sendable, Codable {
        public var uuid: String
        public var major: Int
        public var minor: Int
        public var txPowerDBm: Double
    }

    public var userID: String
    public var deviceID: String
    public var sites: [Site]
    public var beaconCalibrations: [BeaconCalibration]
}
