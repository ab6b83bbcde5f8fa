#if canImport(OSLog) && os(iOS)
import AttendanceEngine
import AttendanceSync
import OSLog

/// The engine's audit records in the unified log too (Console.app, sysdiagnose), beside the
/// store's copy that Diagnostics exports. Site and kind are public; the detail holds no
/// personal data (RSSI, counts, rule names), so it is public as well.
public struct OSLogTelemetry: TelemetrySink {
    private let logger: Logger

    public init(subsystem: String = "com.beaconattendance.app", category: String = "engine") {
        logger = Logger(subsystem: subsystem, category: category)
    }

    public func record(_ record: TelemetryRecord) {
        let site = record.site?.description ?? "-"
        switch record.kind {
        case .manualRejected, .detectionUnavailable, .configurationRejected:
            logger.warning("\(record.kind.rawValue, privacy: .public) site=\(site, privacy: .public) \(record.detail, privacy: .public)")
        default:
            logger.info("\(record.kind.rawValue, privacy: .public) site=\(site, privacy: .public) \(record.detail, privacy: .public)")
        }
    }

    /// Failures with no caller to throw to (a timer's work, a background task).
    public func error(_ context: String, _ error: any Error) {
        logger.error("\(context, privacy: .public): \(String(describing: error), privacy: .public)")
    }
}
#endif
