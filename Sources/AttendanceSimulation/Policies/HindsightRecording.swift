import AttendanceModels
import Foundation

/// One phone's whole run as the `hindsight` policy sees it, second by second: the loudest RSSI
/// of each site's beacons (nothing, when no packet of the site was heard), and whether the
/// person was walking. Not where they were.
public struct HindsightRecording: Hashable, Sendable {
    public let sites: Int
    /// `second * sites + site`: dBm, 0 for nothing heard.
    private var rssi: [Int16]
    private var walkingSeconds: [Bool]

    public var seconds: Int { walkingSeconds.count }

    /// `seconds` seconds of nothing heard, standing still.
    public init(sites: Int, seconds: Int) {
        self.sites = sites
        rssi = [Int16](repeating: 0, count: sites * seconds)
        walkingSeconds = [Bool](repeating: false, count: seconds)
    }

    /// Site `site`'s loudest beacon in second `second`, or nil when nothing was heard.
    public func loudest(second: Int, site: Int) -> Int? {
        let value = rssi[second * sites + site]
        return value == 0 ? nil : Int(value)
    }

    public func walking(second: Int) -> Bool { walkingSeconds[second] }

    public mutating func set(second: Int, site: Int, rssi value: Int?) {
        rssi[second * sites + site] = Int16(clamping: min(value ?? 0, 0))
    }

    public mutating func set(second: Int, walking: Bool) { walkingSeconds[second] = walking }

    /// What `plan`'s phone would have heard had it ranged every second of the run, on the app's
    /// own radio stream (the channels our engine's ranging draws from, with the same body loss,
    /// shielding and scan silences); nothing while the phone is off after a reboot. Walking is
    /// what motion gives our engine: the person moved in the last 10 s.
    init(plan: PhonePlan, environment: RadioEnvironment) {
        self.init(sites: environment.world.sites.count, seconds: Int(plan.length.rounded(.up)))
        var radio = environment.radio(phone: plan.index, stream: .app)
        let timeline = plan.timeline
        var reboots = plan.reboots.makeIterator()
        var reboot = reboots.next()
        for second in 0..<seconds {
            let time = Double(second)
            let (position, shielded) = timeline.position(at: time)
            set(second: second, walking: position != timeline.position(at: time - 10).0)
            while let start = reboot, start + PhonePlan.rebootSeconds <= time { reboot = reboots.next() }
            if let start = reboot, start <= time { continue }
            let near = environment.beacons.contains {
                $0.position.distance(to: position) <= RadioEnvironment.hearingLimitMeters
            }
            guard near else { continue }
            for sample in radio.scan(at: time, position: position, lossDB: shielded + plan.bodyLossDB(at: time))
            where sample.rssi != 0 {
                let current = loudest(second: second, site: sample.siteIndex) ?? Int.min
                set(second: second, site: sample.siteIndex, rssi: max(current, sample.rssi))
            }
        }
    }
}
