import AttendanceModels
import Foundation

// What the employee and the server set: location and motion permissions (automatic detection
// available or not) and a new configuration (validated, then the sites and regions follow it).
extension Engine {
    mutating func permissionsChanged(to newPermissions: Permissions, at now: Date, _ actions: inout [EngineAction]) {
        let before = permissions.automaticDetectionBlockers
        permissions = newPermissions
        let after = newPermissions.automaticDetectionBlockers
        guard before != after else { return }
        if after.isEmpty {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .detectionRestored, site: nil,
                                                            detail: "automatic detection available again")))
            actions.append(.monitorRegions(monitoredRegions))
            actions.append(contentsOf: monitoredRegions.map(EngineAction.requestRegionState))
            armArrivalReminders(for: monitoredRegions, &actions)
        } else {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .detectionUnavailable, site: nil,
                                                            detail: after.joined(separator: "; "))))
            if before.isEmpty { lastPromptAt = nil }
            // iOS would go on showing them on arrival, and the app could no longer withdraw them.
            withdrawArrivalReminders(Set(monitoredRegions.map(\.uuid)), &actions)
            promptForManualCheckInIfNeeded(at: now, &actions)
        }
    }

    mutating func apply(_ newConfiguration: Configuration, at now: Date, _ actions: inout [EngineAction]) {
        if let error = newConfiguration.validationErrors().first {
            actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .configurationRejected, site: nil,
                                                            detail: error.description)))
            return
        }
        let armedBefore = Set(arrivalReminderRegions.map(\.uuid))
        configuration = newConfiguration
        // Sites no longer allowed are dropped unless a session is open there: that one ends
        // with its own exit, never silently.
        withdrawArrivalReminders(armedBefore.subtracting(arrivalReminderRegions.map(\.uuid)), &actions)
        let configuration = configuration
        sites.removeAll { !configuration.allows($0.site) && $0.session == nil && !$0.isConfirming }
        trackConfiguredSites()
        let detail = "\(configuration.sites.count) sites, monitoring \(configuration.regionMonitoring.rawValue)"
        actions.append(.recordTelemetry(TelemetryRecord(at: now, kind: .configurationApplied, site: nil,
                                                        detail: detail)))
        actions.append(.monitorRegions(monitoredRegions))
        armArrivalReminders(for: monitoredRegions, &actions)
    }
}
