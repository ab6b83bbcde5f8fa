import ArgumentParser
import AttendanceEngine
import AttendanceModels
import Foundation

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the engine over a field trace and print its decisions.",
        discussion: """
            TRACE is CSV with the header t,uuid,major,minor,rssi (t in seconds or RFC 3339; rssi 0 = not heard), \
            plus optional t,event,NAME rows. Without region event rows, entries and exits are synthesized the \
            way iOS reports them. Use - to read standard input. See docs/REPLAY.md.
            """
    )

    @Argument(help: "The trace file (CSV), or - for standard input.")
    var trace: String

    @Flag(help: "Print one JSON object per decision.")
    var json = false

    @Option(help: "A JSON engine configuration; missing keys keep their defaults (docs/ENGINE.md). Default: the one a field-test export records.")
    var config: String?

    @Option(help: "Seconds of virtual time to run after the last row, so pending decisions settle.")
    var settle: Double = 900

    @Flag(help: "Also print the engine's audit records (why windows were insufficient, exits, resumes).")
    var telemetry = false

    func validate() throws {
        guard settle >= 0, settle.isFinite else {
            throw ValidationError("--settle must be a number of seconds ≥ 0, got \(settle)")
        }
    }

    func run() throws {
        var configuration = Configuration()
        let text = String(decoding: try readInput(trace, what: "trace"), as: UTF8.self)
        if let config {
            let data = try readInput(config, what: "configuration")
            do {
                configuration = try Configuration.decode(json: data)
            } catch {
                throw CommandFailure("\(config): \(error)")
            }
        } else if let recorded = ReplayTrace.recordedConfiguration(in: text) {
            // A field-test export from the app: the engine runs as it ran on the phone.
            do {
                configuration = try Configuration.decode(json: Data(recorded.utf8))
            } catch {
                throw CommandFailure("\(trace): the configuration recorded on its '# config:' line: \(error)")
            }
            FileHandle.standardError.write(Data("\(trace): using the configuration recorded in the file\n".utf8))
        }
        let parsed: ReplayTrace
        do {
            parsed = try ReplayTrace.parse(text)
        } catch {
            throw CommandFailure("\(trace): \(error)")
        }
        if parsed.rows.isEmpty {
            FileHandle.standardError.write(Data("\(trace): the trace has no rows; nothing to replay\n".utf8))
        }
        let result = Replayer(configuration: configuration, settleSeconds: settle).run(parsed)
        let output = ReplayOutput(json: json)
        var lines: [(Date, Int, String)] = result.decisions.enumerated().map { ($1.decidedAt, $0, output.line(for: $1)) }
        if telemetry {
            lines += result.telemetry.enumerated().map { ($1.at, result.decisions.count + $0, output.line(for: $1)) }
        }
        for (_, _, line) in lines.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) { print(line) }
    }

    private func readInput(_ path: String, what: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read the \(what) file '\(path)': it does not exist or is not readable")
        }
        return data
    }
}

/// Formats decisions and audit records as JSON lines or readable text.
struct ReplayOutput {
    var json: Bool

    func line(for decision: Replayer.Decision) -> String {
        if json {
            var object: [String: String] = [
                "type": decision.type.rawValue, "uuid": decision.uuid.uuidString, "ts": RFC3339.format(decision.ts),
                "decidedAt": RFC3339.format(decision.decidedAt), "sessionKey": decision.sessionKey.rawValue,
                "source": decision.source.rawValue,
            ]
            object["reason"] = decision.reason
            return encode(object, numbers: ["major": Int(decision.major)])
        }
        let reason = decision.reason.map { "  reason=\($0)" } ?? ""
        return "\(decision.type.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) site \(decision.uuid.uuidString):\(decision.major)"
            + "  ts=\(RFC3339.format(decision.ts))  decidedAt=\(RFC3339.format(decision.decidedAt))  session=\(decision.sessionKey)"
            + "  source=\(decision.source.rawValue)\(reason)"
    }

    func line(for record: TelemetryRecord) -> String {
        if json {
            var object = ["type": "audit", "kind": record.kind.rawValue, "at": RFC3339.format(record.at), "detail": record.detail]
            object["site"] = record.site?.description
            return encode(object, numbers: [:])
        }
        return "  audit   \(RFC3339.format(record.at))  \(record.kind.rawValue)\(record.site.map { " \($0)" } ?? ""): \(record.detail)"
    }

    private func encode(_ strings: [String: String], numbers: [String: Int]) -> String {
        var fields = strings.map { ($0.key, jsonString($0.value)) } + numbers.map { ($0.key, String($0.value)) }
        let order = ["type", "kind", "uuid", "major", "site", "ts", "at", "decidedAt", "sessionKey", "source", "reason", "detail"]
        fields.sort { (order.firstIndex(of: $0.0) ?? order.count, $0.0) < (order.firstIndex(of: $1.0) ?? order.count, $1.0) }
        return "{" + fields.map { "\(jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    private func jsonString(_ value: String) -> String {
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case let control where control.value < 0x20: escaped += String(format: "\\u%04x", control.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
