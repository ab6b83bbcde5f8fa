import AttendanceModels
import Foundation

/// What a phone lets the app do, as the app last reported it (`PUT /v1/me/device-state`). What of
/// it blocks detection is `Permissions.automaticDetectionBlockers`, the engine's own rule.
public struct DeviceState: Hashable, Sendable, Codable {
    public var permissions: Permissions
    public var appVersion: String?
    public var observedAt: Date

    public init(permissions: Permissions, appVersion: String?, observedAt: Date) {
        self.permissions = permissions
        self.appVersion = appVersion
        self.observedAt = observedAt
    }

    /// Why the phone can't detect arrivals and departures by itself; empty when nothing blocks it.
    /// Background App Refresh off delays uploads but not detection, so it is not among them.
    public var blockers: [String] { permissions.automaticDetectionBlockers }

    /// The JSON kept in the database (sorted keys, dates as epoch seconds).
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public static func decoded(_ text: String?) -> DeviceState? {
        guard let text else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(DeviceState.self, from: Data(text.utf8))
    }
}
