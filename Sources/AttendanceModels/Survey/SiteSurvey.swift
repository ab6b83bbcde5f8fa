import Foundation

/// A walk through one site with the app's scanner in survey mode: at each marked spot (a desk, a
/// door, a corridor), every beacon heard there with its median RSSI. What it shows is where
/// detection can take the site for another (`SurveyFindings`).
public struct SiteSurvey: Hashable, Sendable, Codable {
    /// The surveyed site's beacon group (UUID and major).
    public var site: SiteBeacon
    public var spots: [SurveySpot]

    public init(site: SiteBeacon, spots: [SurveySpot] = []) {
        self.site = site
        self.spots = spots
    }
}

/// One marked spot: what was heard there while the phone was held still for `seconds`.
public struct SurveySpot: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case desk, door, corridor, other
    }

    /// The installer's words: "Desk 4.12", "Main door".
    public var label: String
    public var kind: Kind
    /// When the recording ended.
    public var recordedAt: Date
    public var seconds: Int
    /// Every beacon heard at least once, loudest median first.
    public var readings: [SurveyReading]

    public init(label: String, kind: Kind, recordedAt: Date, seconds: Int, readings: [SurveyReading]) {
        self.label = label
        self.kind = kind
        self.recordedAt = recordedAt
        self.seconds = seconds
        self.readings = readings
    }
}

/// One beacon at one spot.
public struct SurveyReading: Hashable, Sendable, Codable {
    public var beacon: BeaconIdentity
    /// The median of the seconds it was heard (dBm).
    public var medianRSSI: Double
    /// The share of the spot's seconds it was heard in (0–1).
    public var heardShare: Double

    public init(beacon: BeaconIdentity, medianRSSI: Double, heardShare: Double) {
        self.beacon = beacon
        self.medianRSSI = medianRSSI
        self.heardShare = heardShare
    }

    /// The reading of a spot's recording: the median of the heard seconds, and how many of
    /// `seconds` they were. `nil` if it was never heard.
    public static func of(_ beacon: BeaconIdentity, rssi heard: [Int], seconds: Int) -> SurveyReading? {
        guard !heard.isEmpty, seconds > 0 else { return nil }
        let sorted = heard.sorted()
        let middle = sorted.count / 2
        let median =
            sorted.count.isMultiple(of: 2)
            ? Double(sorted[middle - 1] + sorted[middle]) / 2 : Double(sorted[middle])
        return SurveyReading(
            beacon: beacon, medianRSSI: median, heardShare: min(1, Double(heard.count) / Double(seconds)))
    }
}
