// Engine benchmark (not a test): ranging callbacks handled per second with 5 beacons in view,
// on one core, and the encoded state size per site. Run in release:
//
//     swift run -c release engine-bench [--callbacks N] [--json]
//
// Targets (issue #2): ≥ 500,000 callbacks/s; < 4 KB of encoded state per site.
import AttendanceEngine
import AttendanceModels
import Foundation

struct Options {
    var callbacks = 5_000_000
    var json = false

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--callbacks":
                guard let value = iterator.next().flatMap(Int.init), value > 0 else { fail("--callbacks needs a positive integer") }
                callbacks = value
            case "--json": json = true
            default: fail("unknown argument '\(argument)'; expected --callbacks N or --json")
            }
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("engine-bench: \(message)\n".utf8))
    exit(2)
}

/// Deterministic noise.
struct Noise {
    var random: SplitMix64
    mutating func next(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
}

let options = Options(CommandLine.arguments)
let uuid = SiteBeacon.defaultUUID
let region = BeaconRegion(uuid: uuid)
var configuration = Configuration()
configuration.sites = [SiteConfiguration(major: 1), SiteConfiguration(major: 2)]

// Five beacons in view: three of site 1 (where the employee sits) and two of the site next
// door. Site 1 drops out now and then (rssi 0); site 2 is faint, so it keeps opening windows
// that end insufficient — the engine's busiest realistic steady state.
var noise = Noise(random: SplitMix64(seed: 42))
let patterns: [[BeaconSample]] = (0..<4096).map { _ in
    func sample(_ major: UInt16, _ minor: UInt16, _ rssi: Int) -> BeaconSample {
        BeaconSample(beacon: BeaconIdentity(uuid: uuid, major: major, minor: minor), rssi: rssi)
    }
    let dropout = noise.next(0...9) == 0
    return [
        sample(1, 1, dropout ? 0 : -62 + noise.next(-4...4)),
        sample(1, 2, noise.next(0...3) == 0 ? 0 : -70 + noise.next(-5...5)),
        sample(1, 3, -75 + noise.next(-6...6)),
        sample(2, 1, noise.next(0...1) == 0 ? 0 : -84 + noise.next(-4...4)),
        sample(2, 2, -88 + noise.next(-3...3)),
    ]
}
let events = patterns.map { EngineEvent.beaconsRanged($0, region: region) }

var engine = Engine(configuration: configuration)
let start = Date(timeIntervalSince1970: 1_795_338_000)
_ = engine.handle(.regionEntered(BeaconRegion(uuid: uuid, major: 1)), now: start)

// Warm-up, then the timed run. Actions are counted so the work can't be optimized away.
var actionCount = 0
for index in 0..<10_000 { actionCount &+= engine.handle(events[index & 4095], now: start.addingTimeInterval(Double(index))).count }
let clock = ContinuousClock()
let offset = 10_000.0
let elapsed = clock.measure {
    for index in 0..<options.callbacks {
        actionCount &+= engine.handle(events[index & 4095], now: start.addingTimeInterval(offset + Double(index))).count
    }
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let callbacksPerSecond = Double(options.callbacks) / seconds
let checkIns = engine.openSessions.count

// Encoded state per site, in each phase: 20 sites (the iOS region limit) are put in the phase,
// and the growth of the encoded engine over 20 idle sites is divided by 20, plus the idle
// site's own record. The whole snapshot (with its configuration) is reported beside it.
func encodedSize(_ engine: Engine) -> Int { (try? JSONEncoder().encode(engine).count) ?? -1 }
func perSiteBytes(_ build: (inout Engine, SiteBeacon, Date) -> Void) -> (perSite: Int, snapshot: Int) {
    var many = Configuration()
    many.sites = (1...20).map { SiteConfiguration(major: UInt16($0)) }
    var engine = Engine(configuration: many)
    let idle = encodedSize(engine)
    var oneSite = Configuration()
    oneSite.sites = [SiteConfiguration(major: 1)]
    var none = Configuration()
    none.sites = []
    let idleSiteRecord = encodedSize(Engine(configuration: oneSite)) - encodedSize(Engine(configuration: none))
        - (try! JSONEncoder().encode(oneSite.sites).count - 2)
    for major in 1...20 { build(&engine, SiteBeacon(major: UInt16(major)), start) }
    return ((encodedSize(engine) - idle) / 20 + idleSiteRecord, encodedSize(engine))
}
func ranged(_ engine: inout Engine, _ site: SiteBeacon, _ at: Date, _ rssi: Int) {
    _ = engine.handle(.beaconsRanged([BeaconSample(beacon: BeaconIdentity(uuid: uuid, major: site.major, minor: 1), rssi: rssi)],
                                     region: BeaconRegion(uuid: uuid, major: site.major)), now: at)
}
let sizes: [(String, (perSite: Int, snapshot: Int))] = [
    ("outside", perSiteBytes { _, _, _ in }),
    ("candidate (window, 7 samples)", perSiteBytes { engine, site, at in
        _ = engine.handle(.regionEntered(BeaconRegion(site: site)), now: at)
        for second in 1...7 { ranged(&engine, site, at.addingTimeInterval(Double(second)), -72 + (second % 3) * 9) }
    }),
    ("inside", perSiteBytes { engine, site, at in
        _ = engine.handle(.regionEntered(BeaconRegion(site: site)), now: at)
        for second in 1...5 { ranged(&engine, site, at.addingTimeInterval(Double(second)), -60) }
    }),
    ("softExitPending", perSiteBytes { engine, site, at in
        _ = engine.handle(.regionEntered(BeaconRegion(site: site)), now: at)
        for second in 1...5 { ranged(&engine, site, at.addingTimeInterval(Double(second)), -60) }
        _ = engine.handle(.regionExited(BeaconRegion(site: site)), now: at.addingTimeInterval(40))
    }),
]
let largest = sizes.map(\.1.perSite).max() ?? 0

if options.json {
    let report: [String: Any] = [
        "callbacks": options.callbacks, "seconds": seconds, "callbacksPerSecond": callbacksPerSecond.rounded(),
        "beaconsInView": 5, "openSessionsAtEnd": checkIns, "actions": actionCount,
        "stateBytesPerSite": Dictionary(uniqueKeysWithValues: sizes.map { ($0.0, $0.1.perSite) }),
        "snapshotBytesWith20Sites": Dictionary(uniqueKeysWithValues: sizes.map { ($0.0, $0.1.snapshot) }),
        "largestStateBytesPerSite": largest,
    ]
    let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("engine-bench: \(options.callbacks) ranging callbacks, 5 beacons in view, one thread")
    print(String(format: "  callbacks/s            %12.0f   (target ≥ 500,000)", callbacksPerSecond))
    print(String(format: "  ns per callback        %12.1f", seconds * 1e9 / Double(options.callbacks)))
    print("  actions emitted        \(String(actionCount).leftPadded(12))   (open sessions at end: \(checkIns))")
    print("  encoded state (JSON bytes)        per site (target < 4096)   whole snapshot, 20 sites")
    for (phase, bytes) in sizes {
        print("    \(phase.padding(toLength: 32, withPad: " ", startingAt: 0)) \(String(bytes.perSite).leftPadded(6))   \(String(bytes.snapshot).leftPadded(22))")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
