import Foundation

/// What iOS lets the app do, as the adapters observe it. Shared by the engine (which stops or
/// degrades detection), the app (which guides the employee) and the server (which lists a phone
/// whose detection is blocked, `PUT /v1/me/device-state`), so the rule of what blocks detection is
/// written once.
public struct Permissions: Hashable, Sendable, Codable {
    public enum Location: String, Hashable, Sendable, Codable {
        case notDetermined, restricted, denied, whenInUse, always
    }

    public enum Bluetooth: String, Hashable, Sendable, Codable {
        case unknown, poweredOn, poweredOff, unauthorized, unsupported
    }

    public var location: Location
    /// iOS 14 "Precise Location": beacon ranging and region monitoring need it.
    public var preciseLocation: Bool
    public var bluetooth: Bluetooth
    public var backgroundRefreshAvailable: Bool

    public init(
        location: Location = .always, preciseLocation: Bool = true, bluetooth: Bluetooth = .poweredOn,
        backgroundRefreshAvailable: Bool = true
    ) {
        self.location = location
        self.preciseLocation = preciseLocation
        self.bluetooth = bluetooth
        self.backgroundRefreshAvailable = backgroundRefreshAvailable
    }

    /// Why automatic check-in cannot work while the app is in the background; empty when it can.
    /// In English, as the server lists them (`PUT /v1/me/device-state`).
    public var automaticDetectionBlockers: [String] { automaticDetectionBlockerTexts.map(\.english) }

    /// The same reasons as texts for the phone's language: lower-case fragments, to follow a colon
    /// or to start a sentence.
    public var automaticDetectionBlockerTexts: [LocalizedText] {
        var blockers: [LocalizedText] = []
        switch location {
        case .always: break
        case .whenInUse:
            blockers.append(
                LocalizedText(
                    "location access is 'While Using': arrivals are only seen while the app is open; "
                        + "automatic check-in needs 'Always'"))
        case .denied: blockers.append(LocalizedText("location access is denied"))
        case .restricted: blockers.append(LocalizedText("location access is restricted on this device"))
        case .notDetermined: blockers.append(LocalizedText("location access has not been granted yet"))
        }
        if !preciseLocation {
            blockers.append(
                LocalizedText("Precise Location is off: iOS does not range beacons with approximate location"))
        }
        switch bluetooth {
        case .poweredOn, .unknown: break
        case .poweredOff: blockers.append(LocalizedText("Bluetooth is off"))
        case .unauthorized: blockers.append(LocalizedText("Bluetooth access is denied"))
        case .unsupported: blockers.append(LocalizedText("this device has no Bluetooth LE"))
        }
        return blockers
    }
}
