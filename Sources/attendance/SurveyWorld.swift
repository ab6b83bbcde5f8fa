import ArgumentParser
import AttendanceModels
import AttendanceSimulation
import Foundation

struct SurveyWorld: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "survey-world",
        abstract: "Survey the simulator's world as an installer would, and add the beacons the survey advises.",
        discussion: """
            Walks every site's zone on a grid with a simulated phone in survey mode, judges each spot by the \
            survey rule (another site's beacon within 6 dB of the site's own, or louder, or the site's own \
            hardly heard), adds a beacon of the site where it clears the most flagged spots, lowers a \
            beacon it added earlier that a spot of another site blames, and surveys again, until a survey \
            changes nothing or the rounds are used. Prints every round and writes \
            the world with its added beacons (`addedBeacons`) for `attendance simulate --world`. See \
            docs/FIELD-TEST.md, "Site survey".
            """
    )

    @Option(help: "A world file to survey (JSON); the built-in world by default.")
    var world: String?

    @Option(help: "The seed of the survey's radio.")
    var seed: UInt64 = 1

    @Option(help: "The spacing of the surveyed spots (metres).")
    var gridMeters = 3.0

    @Option(help: "Also survey along every wall, this far in from it (metres; 0: the grid alone).")
    var wallMeters = 0.5

    @Option(help: "Seconds the phone is held still at each spot (at least 10, as in the app).")
    var secondsPerSpot = 30

    @Option(help: "Surveys that may add beacons (one more checks the last).")
    var rounds = 3

    @Option(help: "Beacons that may be added to one site.")
    var maximumAddedPerSite = 4

    @Option(help: "How far an added beacon may be lowered below its installed power (dB; 0: never).")
    var maximumLoweringDB = 12.0

    @Flag(help: "Also print every flagged spot of every round: what was heard there and the advice.")
    var spots = false

    @Option(help: "Write the surveyed world (JSON) to this file.")
    var out: String?

    func validate() throws {
        if !(gridMeters >= 0.5 && gridMeters <= 50) {
            throw ValidationError("'--grid-meters' is \(gridMeters); expected 0.5 to 50")
        }
        if !(wallMeters >= 0 && wallMeters <= 10) {
            throw ValidationError("'--wall-meters' is \(wallMeters); expected 0 to 10")
        }
        if !(10...600).contains(secondsPerSpot) {
            throw ValidationError("'--seconds-per-spot' is \(secondsPerSpot); expected 10 to 600")
        }
        if !(0...10).contains(rounds) { throw ValidationError("'--rounds' is \(rounds); expected 0 to 10") }
        if !(maximumLoweringDB >= 0 && maximumLoweringDB <= 40) {
            throw ValidationError("'--maximum-lowering-db' is \(maximumLoweringDB); expected 0 to 40")
        }
        if !(0...50).contains(maximumAddedPerSite) {
            throw ValidationError("'--maximum-added-per-site' is \(maximumAddedPerSite); expected 0 to 50")
        }
    }

    func run() throws {
        let spec = try world.map(Simulate.loadWorld) ?? WorldSpec()
        var options = SurveyInstaller.Options()
        options.walk.gridMeters = gridMeters
        options.walk.secondsPerSpot = secondsPerSpot
        options.walk.wallMeters = wallMeters > 0 ? wallMeters : nil
        options.rounds = rounds
        options.maximumAddedPerSite = maximumAddedPerSite
        options.maximumLoweringDB = maximumLoweringDB
        let (surveyed, rounds) = SurveyInstaller(options: options).install(in: spec, seed: seed)
        print(
            "| round | site | spots | flagged | beacons added (x, y m from the site's origin) "
                + "| added beacons lowered |")
        print("|---|---|---|---|---|---|")
        for (number, round) in rounds.enumerated() {
            for walk in round.walks {
                let added = (round.added[walk.siteIndex] ?? []).map {
                    String(format: "minor %d at (%.1f, %.1f)", $0.minor, $0.xMeters, $0.yMeters)
                }
                let major = spec.sites[walk.siteIndex].major
                let lowered = round.lowered.filter { $0.key.major == major }.sorted { $0.key.minor < $1.key.minor }
                    .map { String(format: "minor %d by %.1f dB", $0.key.minor, $0.value) }
                let site = spec.sites[walk.siteIndex].id
                print(
                    "| \(number + 1) | \(site) | \(walk.spots.count) | \(walk.flagged.count) | "
                        + "\(added.isEmpty ? "none" : added.joined(separator: "; ")) | "
                        + "\(lowered.isEmpty ? "none" : lowered.joined(separator: "; ")) |")
            }
        }
        if spots { printSpots(rounds, sites: spec.sites) }
        guard let out else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(surveyed).write(to: URL(fileURLWithPath: out))
        } catch {
            throw CommandFailure("can't write the surveyed world to '\(out)': \(error.localizedDescription)")
        }
    }

    private func printSpots(_ rounds: [SurveyInstaller.Round], sites: [SiteSpec]) {
        func reading(_ reading: SurveyReading?) -> String {
            guard let reading else { return "none" }
            return String(
                format: "%@ %.1f dBm (%.0f %%)", reading.beacon.description, reading.medianRSSI,
                reading.heardShare * 100)
        }
        for (number, round) in rounds.enumerated() {
            for walk in round.walks {
                for spot in walk.flagged {
                    guard let finding = spot.finding else { continue }
                    let site = sites[walk.siteIndex].id
                    print(
                        "round \(number + 1) \(site) \(spot.spot.label): own \(reading(finding.own)), "
                            + "other \(reading(finding.neighbour)); \(finding.problem)")
                }
            }
        }
    }
}
