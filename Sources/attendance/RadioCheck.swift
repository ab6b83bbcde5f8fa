import ArgumentParser
import AttendanceSimulation
import Foundation

struct RadioCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "radio-check",
        abstract: "Hold the simulator's radio against recordings of real iPhones.",
        discussion: """
            Simulates a phone lying 3 m from a beacon for six recordings of 5 h (and 290 h for the longest \
            silence), logs it every 2–4 s, and prints each statistic beside the real figure and its band. \
            With --recording, prints the same statistics of a recording of your own instead: CSV rows \
            'seconds,rssi' (an empty or 0 rssi: nothing heard at that tick). See docs/SIMULATOR.md.
            """
    )

    @Option(help: "A world file (JSON; every field optional, see docs/SIMULATOR.md).")
    var world: String?

    @Option(help: "The seed of the simulated recordings.")
    var seed: UInt64 = 1

    @Option(help: "A recording to measure instead (CSV: seconds,rssi).")
    var recording: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        if let recording {
            let statistics = RecordingStatistics(try Self.readings(recording))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(statistics), as: UTF8.self))
            return
        }
        let spec = try world.map(Simulate.loadWorld) ?? WorldSpec()
        let rows = RadioCalibration(world: spec, seed: seed).rows()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
        } else {
            print("| statistic | real iPhones | band | simulator (range over recordings) | |")
            print("|---|---|---|---|---|")
            for row in rows {
                let band = "\(Self.format(row.band.lowerBound))–\(Self.format(row.band.upperBound))"
                let range =
                    "\(Self.format(row.simulatedRange.lowerBound))–\(Self.format(row.simulatedRange.upperBound))"
                print(
                    "| \(row.statistic) | \(row.real) | \(band) | \(Self.format(row.simulated)) (\(range)) | "
                        + "\(row.passes ? "pass" : "FAIL") |")
            }
        }
        if rows.contains(where: { !$0.passes }) { throw ExitCode(1) }
    }

    static func format(_ value: Double) -> String { String(format: abs(value) < 1 ? "%.3f" : "%.1f", value) }

    /// Reads 'seconds,rssi' rows; a header line and blank lines are skipped.
    static func readings(_ path: String) throws -> [RecordingStatistics.Reading] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure("can't read the recording '\(path)': \(error.localizedDescription)")
        }
        var readings: [RecordingStatistics.Reading] = []
        for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let time = Double(fields[0]) else {
                if number == 0 { continue }
                throw CommandFailure("'\(path)' line \(number + 1): seconds is '\(fields[0])'; expected a number")
            }
            let rssiText = fields.count > 1 ? fields[1] : ""
            guard rssiText.isEmpty || Double(rssiText) != nil else {
                throw CommandFailure("'\(path)' line \(number + 1): rssi is '\(rssiText)'; expected dBm, 0 or empty")
            }
            let rssi = Double(rssiText).flatMap { $0 == 0 ? nil : $0 }
            if let last = readings.last, time < last.time {
                throw CommandFailure(
                    "'\(path)' line \(number + 1): seconds is \(time); expected ≥ \(last.time) (time order)")
            }
            readings.append(.init(time: time, rssi: rssi))
        }
        return readings
    }
}
