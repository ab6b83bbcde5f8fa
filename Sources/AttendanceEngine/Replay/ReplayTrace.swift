import AttendanceModels
import Foundation

/// A field trace (docs/REPLAY.md): CSV with the header `t,uuid,major,minor,rssi`, one row per ranging
/// sample (`rssi` 0 = not heard), and optional `t,event,NAME` rows for region, app and motion
/// events. `t` is seconds (since 1970-01-01, or simply from the start) or an RFC 3339 time.
public struct ReplayTrace: Hashable, Sendable {
    public static let header = "t,uuid,major,minor,rssi"

    public enum Row: Hashable, Sendable {
        /// One ranging callback: every beacon of one UUID reported at the same `t`.
        case ranging(at: Date, samples: [BeaconSample], line: Int)
        case event(at: Date, TraceEvent, line: Int)

        public var time: Date {
            switch self {
            case .ranging(let time, _, _), .event(let time, _, _): return time
            }
        }
    }

    public var rows: [Row]

    public init(rows: [Row]) { self.rows = rows }

    /// Whether the trace carries region events; without them, replay synthesizes them.
    public var hasRegionEvents: Bool {
        rows.contains { row in
            if case .event(_, let event, _) = row { return event.isRegionEvent }
            return false
        }
    }

    /// Parses a whole trace before anything is run, so an error comes before any decision.
    /// The comment line an app's field-test export records its engine configuration on (JSON).
    public static let configurationPrefix = "# config: "

    /// The configuration a field-test export recorded, as JSON, if the text has one.
    public static func recordedConfiguration(in text: String) -> String? {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .first { $0.hasPrefix(configurationPrefix) }
            .map { String($0.dropFirst(configurationPrefix.count)) }
    }

    /// Blank lines and lines starting with `#` are skipped; rows must be in time order.
    public static func parse(_ text: String) throws(TraceError) -> ReplayTrace {
        var rows: [Row] = []
        var previous: (time: Date, text: String)?
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if fields.first == "t" {
                guard fields == header.split(separator: ",").map(String.init) else {
                    throw TraceError(line: lineNumber, column: "header", value: line, expected: "the header '\(header)'")
                }
                continue
            }
            let time = try parseTime(fields[0], line: lineNumber)
            if let previous, time < previous.time {
                throw TraceError(line: lineNumber, column: "t", value: fields[0],
                                 expected: "a time no earlier than the previous row's '\(previous.text)' (rows must be in time order)")
            }
            previous = (time, fields[0])
            if fields.count >= 2, fields[1].lowercased() == "event" {
                guard fields.count == 3 else {
                    throw TraceError(line: lineNumber, column: "event", value: line, expected: "3 columns: t,event,NAME (got \(fields.count))")
                }
                rows.append(.event(at: time, try TraceEvent.parse(fields[2], line: lineNumber), line: lineNumber))
                continue
            }
            guard fields.count == 5 else {
                throw TraceError(line: lineNumber, column: "row", value: line,
                                 expected: "5 columns (t,uuid,major,minor,rssi) or 3 (t,event,NAME); got \(fields.count)")
            }
            guard let uuid = UUID(uuidString: fields[1]) else {
                throw TraceError(line: lineNumber, column: "uuid", value: fields[1], expected: "a UUID like FDA50693-0000-0000-0000-290995101092, or 'event'")
            }
            let major = try parseUInt16(fields[2], column: "major", line: lineNumber)
            let minor = try parseUInt16(fields[3], column: "minor", line: lineNumber)
            guard let rssi = Int(fields[4]), rssi <= 0, rssi >= -127 else {
                throw TraceError(line: lineNumber, column: "rssi", value: fields[4], expected: "an integer dBm from -127 to -1, or 0 for not heard")
            }
            let sample = BeaconSample(beacon: BeaconIdentity(uuid: uuid, major: major, minor: minor), rssi: rssi)
            // Rows of one UUID at the same time are one ranging callback.
            if case .ranging(let lastTime, var samples, let firstLine)? = rows.last, lastTime == time, samples.first?.beacon.uuid == uuid {
                samples.append(sample)
                rows[rows.count - 1] = .ranging(at: time, samples: samples, line: firstLine)
            } else {
                rows.append(.ranging(at: time, samples: [sample], line: lineNumber))
            }
        }
        return ReplayTrace(rows: rows)
    }

    private static func parseTime(_ field: String, line: Int) throws(TraceError) -> Date {
        if let seconds = Double(field), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        do {
            return try RFC3339.parse(field)
        } catch {
            throw TraceError(line: line, column: "t", value: field, expected: "seconds (e.g. 12.5) or an RFC 3339 time (\(error.reason))")
        }
    }

    private static func parseUInt16(_ field: String, column: String, line: Int) throws(TraceError) -> UInt16 {
        guard let value = UInt16(field) else {
            throw TraceError(line: line, column: column, value: field, expected: "an integer from 0 to 65535")
        }
        return value
    }
}

/// Writes the trace format; the app's diagnostics export uses it so field logs replay here.
public enum TraceWriter {
    /// One row per sample. The time is formatted once and each UUID once per call: a phone writes
    /// these rows every second it ranges (the trace rows were 4.5 % of a simulated phone's CPU).
    public static func rows(for samples: [BeaconSample], at time: Date) -> [String] {
        let stamp = RFC3339.format(time)
        var uuid: (UUID, String)?
        return samples.map { sample in
            let text: String
            if let (last, lastText) = uuid, last == sample.beacon.uuid {
                text = lastText
            } else {
                text = sample.beacon.uuid.uuidString
                uuid = (sample.beacon.uuid, text)
            }
            return "\(stamp),\(text),\(sample.beacon.major),\(sample.beacon.minor),\(sample.rssi)"
        }
    }

    public static func row(for event: TraceEvent, at time: Date) -> String {
        "\(RFC3339.format(time)),event,\(event.name)"
    }
}
