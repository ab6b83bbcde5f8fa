import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// Site surveys from the app's scanner: kept per site, read with their findings (the spots where
/// another site's beacon is within 6 dB of the site's own, or louder; `SurveyFindings`).
extension AdminService {
    public static let maxSurveySpots = 500
    public static let maxSurveyReadings = 100
    static let maxSpotLabel = 60
    static let maxSpotSeconds = 3_600

    /// A site's survey as its findings see it: the other active sites' beacons are its neighbours.
    public struct SurveyReport: Sendable {
        public var stored: StoredSurvey
        public var findings: [SurveyFinding]
        /// The site each neighbouring beacon group belongs to, by name.
        public var siteNames: [SiteBeacon: String]
    }

    /// Keeps a survey a phone took of `siteId` (an active site); every spot checked first, the
    /// first problem named by its place in the body (`spots[3].readings[0].heardShare`): 400 for a
    /// value the contract's schema forbids, 422 for one it allows but the server refuses (a spot
    /// recorded in the future, a name of spaces).
    public func storeSurvey(
        siteId: SiteID, spots: [SurveySpot], device: DeviceID, user: UserID
    ) async throws -> SurveyReport {
        guard let site = try await repository.site(id: siteId), site.isActive else {
            throw DomainError.field(
                "siteId", InputRules.shown(siteId.rawValue), expected: "the id of an active site",
                kind: .unprocessable)
        }
        try Self.check(spots, now: environment.now())
        let stored = try await repository.storeSurvey(
            StoredSurvey(
                id: 0, siteId: siteId, deviceId: device, userId: user, receivedAt: environment.now(),
                survey: SiteSurvey(site: site.beacon, spots: spots)))
        return Self.report(stored, sites: try await repository.sites())
    }

    /// The site's newest surveys with their findings, newest first.
    public func surveys(siteId: SiteID, limit: Int = 5) async throws -> [SurveyReport] {
        let sites = try await repository.sites()
        return try await repository.surveys(siteId: siteId, limit: limit).map { Self.report($0, sites: sites) }
    }

    /// A survey's findings against the other active sites of `sites`.
    private static func report(_ stored: StoredSurvey, sites: [SiteRecord]) -> SurveyReport {
        let active = sites.filter(\.isActive)
        let others = Set(active.map(\.beacon)).subtracting([stored.survey.site])
        return SurveyReport(
            stored: stored, findings: SurveyFindings.of(stored.survey, otherSites: others),
            siteNames: Dictionary(active.map { ($0.beacon, $0.name) }, uniquingKeysWith: { first, _ in first }))
    }

    static func check(_ spots: [SurveySpot], now: Date) throws {
        guard (1...maxSurveySpots).contains(spots.count) else {
            throw DomainError.field("spots", "\(spots.count) spots", expected: "1 to \(maxSurveySpots) spots")
        }
        for (index, spot) in spots.enumerated() {
            let path = "spots[\(index)]"
            let label = spot.label.trimmingCharacters(in: .whitespacesAndNewlines)
            if label.isEmpty || label.count > maxSpotLabel
                || label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                throw DomainError.field(
                    "\(path).label", InputRules.shown(spot.label),
                    expected: "1 to \(maxSpotLabel) characters without control characters, not only spaces",
                    kind: .unprocessable)
            }
            if !(1...maxSpotSeconds).contains(spot.seconds) {
                throw DomainError.field(
                    "\(path).seconds", "\(spot.seconds)", expected: "1 to \(maxSpotSeconds) seconds")
            }
            if spot.recordedAt > now.addingTimeInterval(300) {
                throw DomainError.field(
                    "\(path).recordedAt", RFC3339.format(spot.recordedAt),
                    expected: "a time no later than the server's clock plus 5 minutes", kind: .unprocessable)
            }
            try check(spot.readings, at: path)
        }
    }

    private static func check(_ readings: [SurveyReading], at path: String) throws {
        guard readings.count <= maxSurveyReadings else {
            throw DomainError.field(
                "\(path).readings", "\(readings.count) readings", expected: "at most \(maxSurveyReadings)")
        }
        for (index, reading) in readings.enumerated() {
            if !(-127...0).contains(reading.medianRSSI) || !reading.medianRSSI.isFinite {
                throw DomainError.field(
                    "\(path).readings[\(index)].medianRssi", "\(reading.medianRSSI)",
                    expected: "a median RSSI from -127 to 0 dBm")
            }
            if !(0...1).contains(reading.heardShare) {
                throw DomainError.field(
                    "\(path).readings[\(index)].heardShare", "\(reading.heardShare)", expected: "a share from 0 to 1")
            }
        }
    }
}
