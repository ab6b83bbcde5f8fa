import Foundation

/// The energy model: what a phone-day of each policy costs its battery. Every coefficient is a
/// current at the battery (mA) while something runs, or a charge (mA·s) per occurrence; the
/// sources are in docs/SIMULATOR.md ("Energy"). A world file may change any of them (`energy`).
public struct EnergySpec: Hashable, Sendable, Codable {
    /// The battery the share is reported against.
    public var batteryMilliampHours: Double = 3_000
    /// The app awake in the background, screen off: CPU and memory, no radio work.
    public var awakeMilliamps: Double = 20
    /// Bluetooth ranging (active scanning) while the app is awake, on top of `awakeMilliamps`.
    public var rangingMilliamps: Double = 10
    /// Background location updates at the lowest accuracy (cell and Wi-Fi, no GPS), on top of
    /// `awakeMilliamps`.
    public var backgroundLocationMilliamps: Double = 3
    /// iOS launching or resuming the app in the background, beyond the seconds it then runs.
    public var wakeupMilliampSeconds: Double = 150
    /// The system monitoring the app's beacon regions, per region, all day.
    public var regionMonitoringMilliampsPerRegion: Double = 0
    /// A request over the cellular radio: waking it and its tail afterwards.
    public var requestMilliampSeconds: Double = 2_500
    /// Each kilobyte sent or received.
    public var milliampSecondsPerKilobyte: Double = 0.8

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case batteryMilliampHours, awakeMilliamps, rangingMilliamps, backgroundLocationMilliamps, wakeupMilliampSeconds,
            regionMonitoringMilliampsPerRegion, requestMilliampSeconds, milliampSecondsPerKilobyte
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = EnergySpec()
        batteryMilliampHours = try c.value(.batteryMilliampHours, or: d.batteryMilliampHours)
        awakeMilliamps = try c.value(.awakeMilliamps, or: d.awakeMilliamps)
        rangingMilliamps = try c.value(.rangingMilliamps, or: d.rangingMilliamps)
        backgroundLocationMilliamps = try c.value(.backgroundLocationMilliamps, or: d.backgroundLocationMilliamps)
        wakeupMilliampSeconds = try c.value(.wakeupMilliampSeconds, or: d.wakeupMilliampSeconds)
        regionMonitoringMilliampsPerRegion = try c.value(
            .regionMonitoringMilliampsPerRegion, or: d.regionMonitoringMilliampsPerRegion)
        requestMilliampSeconds = try c.value(.requestMilliampSeconds, or: d.requestMilliampSeconds)
        milliampSecondsPerKilobyte = try c.value(.milliampSecondsPerKilobyte, or: d.milliampSecondsPerKilobyte)
    }

    /// Each coefficient that can't be one, as "'energy.field' is value; expected …".
    func validationErrors() -> [String] {
        let values: [(String, Double)] = [
            ("awakeMilliamps", awakeMilliamps), ("rangingMilliamps", rangingMilliamps),
            ("backgroundLocationMilliamps", backgroundLocationMilliamps),
            ("wakeupMilliampSeconds", wakeupMilliampSeconds),
            ("regionMonitoringMilliampsPerRegion", regionMonitoringMilliampsPerRegion),
            ("requestMilliampSeconds", requestMilliampSeconds),
            ("milliampSecondsPerKilobyte", milliampSecondsPerKilobyte),
        ]
        var errors = values.filter { !($0.1 >= 0 && $0.1.isFinite) }.map {
            "'energy.\($0.0)' is \($0.1); expected a number ≥ 0"
        }
        if !(batteryMilliampHours > 0) {
            errors.append("'energy.batteryMilliampHours' is \(batteryMilliampHours); expected a capacity > 0")
        }
        return errors
    }

    /// The charge of `usage` over `days`, per day, by part (mAh).
    public func perDay(_ usage: DeviceUsage, days: Double) -> EnergyParts {
        let days = max(days, 1e-9)
        func mAh(_ milliampSeconds: Double) -> Double { milliampSeconds / 3_600 / days }
        return EnergyParts(
            awake: mAh(usage.awakeSeconds * awakeMilliamps),
            ranging: mAh(usage.scanSeconds * rangingMilliamps),
            backgroundLocation: mAh(usage.backgroundLocationSeconds * backgroundLocationMilliamps),
            wakeups: mAh(Double(usage.wakeups) * wakeupMilliampSeconds),
            regionMonitoring: mAh(usage.monitoredRegionSeconds * regionMonitoringMilliampsPerRegion),
            network: mAh(
                Double(usage.requests) * requestMilliampSeconds + Double(usage.bytes) / 1_024
                    * milliampSecondsPerKilobyte))
    }
}

/// A phone-day's charge, by what spent it (mAh).
public struct EnergyParts: Hashable, Sendable, Codable {
    public var awake: Double
    public var ranging: Double
    public var backgroundLocation: Double
    public var wakeups: Double
    public var regionMonitoring: Double
    public var network: Double

    public var total: Double { awake + ranging + backgroundLocation + wakeups + regionMonitoring + network }
}
