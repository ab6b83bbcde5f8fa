/// One beacon in one ranging callback. iOS reports ranging once a second; a beacon that was
/// not heard during that second comes with `rssi == 0`.
public struct BeaconSample: Hashable, Sendable, Codable {
    public var beacon: BeaconIdentity
    /// Received signal strength in dBm; 0 means "not heard this second".
    public var rssi: Int

    public init(beacon: BeaconIdentity, rssi: Int) {
        self.beacon = beacon
        self.rssi = rssi
    }

    /// A sample with `rssi == 0` carries no signal and must never enter a filter.
    @inlinable public var isHeard: Bool { rssi != 0 }
}
