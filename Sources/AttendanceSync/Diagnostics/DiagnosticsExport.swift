import AttendanceEngine
import AttendanceModels
import Foundation

/// What the app's Diagnostics screen shares: the audit log as JSON lines (with the dead letters,
/// the events the server keeps answering 409, and the outbox counts), and what the engine saw as
/// a replay trace that
/// `attendance replay` reproduces on any machine.
public struct DiagnosticsExport: Sendable {
    public var telemetryJSONLines: String
    public var traceCSV: String
}

extension DeviceStore {
    public func diagnosticsExport() throws -> DiagnosticsExport {
        let encoder = CanonicalJSON.encoder
        var lines: [String] = []
        let counts = try counts()
        lines.append(try jsonLine(["type": "outbox", "pending": String(counts.pending), "inFlight": String(counts.inFlight),
                                   "delivered": String(counts.delivered), "dead": String(counts.dead)], encoder))
        for record in try telemetry() {
            var object = ["type": "telemetry", "at": RFC3339.format(record.at), "kind": record.kind.rawValue, "detail": record.detail]
            object["site"] = record.site?.description
            lines.append(try jsonLine(object, encoder))
        }
        for dead in try deadLetters() {
            lines.append(try jsonLine(["type": "deadLetter", "idempotencyKey": dead.idempotencyKey, "kind": dead.event.kind.rawValue,
                                       "sessionKey": dead.event.sessionKey.rawValue, "ts": RFC3339.format(dead.event.timestamp),
                                       "reason": dead.lastError ?? "", "attempts": String(dead.attempts)], encoder))
        }
        for busy in try entries(in: .pending) where busy.serverBusySince != nil {
            lines.append(
                try jsonLine(
                    [
                        "type": "serverBusy", "idempotencyKey": busy.idempotencyKey, "kind": busy.event.kind.rawValue,
                        "sessionKey": busy.event.sessionKey.rawValue, "ts": RFC3339.format(busy.event.timestamp),
                        "since": RFC3339.format(busy.serverBusySince ?? busy.enqueuedAt),
                        "reason": busy.lastError ?? "",
                                       "attempts": String(busy.attempts)], encoder))
        }
        let trace = ([ReplayTrace.header] + (try traceLines())).joined(separator: "\n") + "\n"
        return DiagnosticsExport(telemetryJSONLines: lines.joined(separator: "\n") + "\n", traceCSV: trace)
    }

    private func jsonLine(_ object: [String: String], _ encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(object), as: UTF8.self)
    }
}
