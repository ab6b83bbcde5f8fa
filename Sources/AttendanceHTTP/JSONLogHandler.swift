import Foundation
import Logging
import Synchronization

/// One JSON object per line on standard error: `ts`, `level`, `logger`, `message`, then the
/// metadata's keys. For operators whose log pipeline parses JSON (`serve --log-format json`).
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private static let output = Mutex<FileHandle>(FileHandle.standardError)

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) { object[key] = "\(value)" }
        object["ts"] = ISO8601DateFormatter().string(from: Date())
        object["level"] = event.level.rawValue
        object["logger"] = label
        object["message"] = "\(event.message)"
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0A)
        Self.output.withLock { $0.write(line) }
    }
}
