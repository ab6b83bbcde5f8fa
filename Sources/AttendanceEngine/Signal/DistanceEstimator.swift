import AttendanceModels
import Foundation

/// Estimates the distance to a beacon from a (smoothed) RSSI.
public struct DistanceEstimator: Hashable, Sendable {
    public enum Model: Hashable, Sendable, Codable {
        /// `d = 10^((txPower − rssi) / (10·n))`.
        case logDistance(pathLossExponent: Double)
        /// `d = A·(rssi/txPower)^B + C`, fitted to measurements of one phone model. The
        /// defaults are the coefficients Radius Networks published for iOS devices.
        case curveFitted(a: Double, b: Double, c: Double)

        public static let iOSCurve = Model.curveFitted(a: 0.89976, b: 7.7095, c: 0.111)
    }

    public var model: Model
    public var defaultTxPowerDBm: Double
    public var calibrations: [BeaconCalibration]
    public var defaultUUID: UUID

    public init(model: Model = .logDistance(pathLossExponent: 2.0), defaultTxPowerDBm: Double = -59,
                calibrations: [BeaconCalibration] = [], defaultUUID: UUID = SiteBeacon.defaultUUID) {
        self.model = model
        self.defaultTxPowerDBm = defaultTxPowerDBm
        self.calibrations = calibrations
        self.defaultUUID = defaultUUID
    }

    public init(configuration: Configuration) {
        self.init(model: .logDistance(pathLossExponent: configuration.pathLossExponent), defaultTxPowerDBm: configuration.txPowerDBm,
                  calibrations: configuration.beaconCalibrations, defaultUUID: configuration.proximityUUID)
    }

    /// The measured power at 1 m for a beacon: a per-minor calibration first, then a per-site
    /// one, then the default.
    public func txPower(for beacon: BeaconIdentity) -> Double {
        var siteWide: Double?
        for calibration in calibrations where (calibration.uuid ?? defaultUUID) == beacon.uuid && calibration.major == beacon.major {
            if calibration.minor == beacon.minor { return calibration.txPowerDBm }
            if calibration.minor == nil { siteWide = calibration.txPowerDBm }
        }
        return siteWide ?? defaultTxPowerDBm
    }

    /// Metres, or `nil` for a sample that was not heard (`rssi == 0`).
    public func distanceMeters(rssi: Double, beacon: BeaconIdentity) -> Double? {
        guard rssi != 0 else { return nil }
        return Self.distanceMeters(rssi: rssi, txPowerDBm: txPower(for: beacon), model: model)
    }

    public static func distanceMeters(rssi: Double, txPowerDBm: Double, model: Model) -> Double {
        switch model {
        case .logDistance(let n):
            return pow(10, (txPowerDBm - rssi) / (10 * n))
        case .curveFitted(let a, let b, let c):
            return a * pow(rssi / txPowerDBm, b) + c
        }
    }
}

/// Apple's coarse proximity classes, derived from an estimated distance.
public enum Proximity: String, Hashable, Sendable, Codable {
    case immediate, near, far, unknown

    /// Immediate under 0.5 m, near under 3 m, far beyond (CLProximity's documented bands).
    public init(distanceMeters: Double?) {
        guard let distance = distanceMeters, distance.isFinite else { self = .unknown; return }
        self = distance < 0.5 ? .immediate : distance < 3 ? .near : .far
    }
}
