import AttendanceRules
import Foundation

extension Console {
    /// The zones a page not about one site (the audit log, devices) can show its times in: the
    /// viewer's sites' zones, the one most of them use first (the default), then UTC.
    func readingZones(_ viewer: Viewer) async throws -> [String] {
        let sites = try await services.repository.sites().filter { $0.isActive && viewer.scope.permits($0.id) }
        var counts: [String: Int] = [:]
        for site in sites { counts[site.timeZone, default: 0] += 1 }
        let zones = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        return zones.contains("UTC") ? zones : zones + ["UTC"]
    }
}
