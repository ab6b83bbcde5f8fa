import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// A phone's report of what it lets the app do: checked, then kept if it is the latest. And how
/// many phones went silent (`/metrics`' `devices_silent`).
public struct DeviceStateService: Sendable {
    public let repository: any AuthRepository
    /// A report may not be from later than now + this (the phone's clock may run ahead a little).
    static let futureAllowanceSeconds: Double = 300
    /// A phone that sent nothing for this long is silent: a week covers a weekend, a holiday
    /// week is what the operator's alert threshold (a share of the phones) absorbs.
    public static let silence: TimeInterval = 7 * 86_400
    private let environment: ServerEnvironment

    public init(repository: any AuthRepository, environment: ServerEnvironment) {
        self.repository = repository
        self.environment = environment
    }

    public func report(_ state: DeviceState, device: DeviceID) async throws {
        if let version = state.appVersion { try InputRules.text("appVersion", version, maxLength: 64) }
        let latest = environment.now().addingTimeInterval(Self.futureAllowanceSeconds)
        guard state.observedAt <= latest else {
            throw DomainError.field(
                "observedAt", RFC3339.format(state.observedAt),
                expected: "a time no later than the server's clock + 300 s (\(RFC3339.format(latest)))",
                kind: .unprocessable)
        }
        try await repository.saveDeviceState(state, device: device)
    }

    /// Devices in use, and those silent for `silence`.
    public func silence() async throws -> (inUse: Int, silent: Int) {
        try await repository.deviceSilence(since: environment.now().addingTimeInterval(-Self.silence))
    }
}
