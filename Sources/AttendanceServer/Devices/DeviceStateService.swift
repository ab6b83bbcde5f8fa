import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// A phone's report of what it lets the app do: checked, then kept if it is the latest.
public struct DeviceStateService: Sendable {
    public let repository: any AuthRepository
    /// A report may not be from later than now + this (the phone's clock may run ahead a little).
    static let futureAllowanceSeconds: Double = 300
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
}
