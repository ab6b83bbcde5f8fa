import Foundation

/// A circle around a site (WGS 84 degrees, metres): the "campus" geofence that wakes the app
/// near a site before any beacon is heard, and bounds where a manual check-in is plausible.
public struct Geofence: Hashable, Sendable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var radiusMeters: Double

    public init(latitude: Double, longitude: Double, radiusMeters: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusMeters = radiusMeters
    }

    /// Great-circle distance in metres from the centre (haversine, mean Earth radius).
    public func distanceMeters(toLatitude latitude: Double, longitude: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (latitude - self.latitude) * radians
        let dLon = (longitude - self.longitude) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(self.latitude * radians) * cos(latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
