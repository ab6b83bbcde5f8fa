import AttendanceRules
import Foundation

extension Console {
    /// The zones a page not about one site (the audit log, devices) can show its times in: the
    /// viewer's active sites' zones, the one most of them use first (the default), then UTC.
    static func readingZones(_ sites: [SiteRecord], _ viewer: Viewer) -> [String] {
        var counts: [String: Int] = [:]
        for site in sites where site.isActive && viewer.scope.permits(site.id) {
            counts[site.timeZone, default: 0] += 1
        }
        let zones = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        return zones.contains("UTC") ? zones : zones + ["UTC"]
    }
}
