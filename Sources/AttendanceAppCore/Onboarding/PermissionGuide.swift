import AttendanceEngine
import AttendanceModels
import Foundation

/// What the phone allows, as the Apple adapters read it: the engine's `Permissions` plus what only
/// onboarding cares about (whether iOS will still show the Always prompt, notifications, motion).
public struct PermissionSnapshot: Hashable, Sendable {
    public enum Authorization: String, Hashable, Sendable {
        case notDetermined, denied, authorized, unavailable
    }

    public var engine: Permissions
    /// iOS shows the "Change to Always Allow" prompt once; after that only Settings can change it.
    public var alwaysPromptAlreadyShown: Bool
    public var notifications: Authorization
    public var motion: Authorization

    public init(
        engine: Permissions, alwaysPromptAlreadyShown: Bool = false, notifications: Authorization = .notDetermined,
        motion: Authorization = .notDetermined
    ) {
        self.engine = engine
        self.alwaysPromptAlreadyShown = alwaysPromptAlreadyShown
        self.notifications = notifications
        self.motion = motion
    }
}

/// The onboarding screen: one step per thing automatic attendance needs, each with why it is
/// needed, whether it is done, and the one action that moves it forward.
public struct PermissionGuide: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        case requestWhenInUse, requestAlways, requestNotifications, requestMotion
        /// Starts the app's Bluetooth use (iOS asks for access the first time), after this step
        /// has explained it; the power state is known from then on.
        case requestBluetooth
        /// The app's page in Settings (`UIApplication.openSettingsURLString`): only the employee can change it there.
        case openSettings
        case none
    }

    public enum StepStatus: String, Hashable, Sendable {
        case done
        /// Tap the action.
        case needed
        /// Automatic attendance does not work until this is fixed.
        case blocking
        /// Works without it, with a cost the text explains.
        case optional
    }

    public struct Step: Hashable, Sendable, Identifiable {
        public enum ID: String, Hashable, Sendable {
            case location, preciseLocation, bluetooth, backgroundRefresh, notifications, motion
        }

        public var id: ID
        public var title: LocalizedText
        public var explanation: LocalizedText
        public var status: StepStatus
        public var action: Action
        public var actionTitle: LocalizedText?

        init(
            id: ID, title: LocalizedText, explanation: LocalizedText, status: StepStatus, action: Action,
            actionTitle: LocalizedText? = nil
        ) {
            self.id = id
            self.title = title
            self.explanation = explanation
            self.status = status
            self.action = action
            self.actionTitle = actionTitle
        }
    }

    public var steps: [Step]

    /// True when the app can check in and out with the phone locked in a pocket.
    public var automaticAttendanceWorks: Bool {
        !steps.contains {
            $0.status == .blocking || ($0.status == .needed && $0.id != .notifications && $0.id != .motion)
        }
    }

    /// One line for the top of the screen (and the Today screen's warning).
    public var headline: LocalizedText {
        if automaticAttendanceWorks {
            return LocalizedText("Automatic attendance is on. You do not need to open the app at work.")
        }
        let blocking = steps.filter { $0.status == .blocking || $0.status == .needed }.map(\.title)
        return LocalizedText(
            "Automatic attendance needs: %@.",
            .text(LocalizedText.list(blocking)))
    }

    /// The step to show first: the first one not done, in order.
    public var next: Step? { steps.first { $0.status == .needed || $0.status == .blocking } }

    public init(_ snapshot: PermissionSnapshot) {
        steps = [
            Self.location(snapshot), Self.precise(snapshot.engine), Self.bluetooth(snapshot.engine.bluetooth),
            Self.backgroundRefresh(snapshot.engine.backgroundRefreshAvailable),
            Self.notifications(snapshot.notifications),
            Self.motion(snapshot.motion),
        ]
    }

    private static func location(_ snapshot: PermissionSnapshot) -> Step {
        let why = LocalizedText(
            "Your phone notices the work site's beacons even when the app is closed and the phone is locked. "
                + "iOS allows that only with location access set to Always. Your location is not sent anywhere: "
                + "only check-in and check-out times at your work sites are.")
        let always = LocalizedText("Location: Always")
        let settings = LocalizedText("Open Settings")
        switch snapshot.engine.location {
        case .always:
            return Step(id: .location, title: always, explanation: why, status: .done, action: .none)
        case .notDetermined:
            return Step(
                id: .location, title: LocalizedText("Location access"), explanation: why, status: .needed,
                action: .requestWhenInUse, actionTitle: LocalizedText("Allow location"))
        case .whenInUse where !snapshot.alwaysPromptAlreadyShown:
            return Step(
                id: .location, title: always,
                explanation: LocalizedText(
                    "Location is set to While Using the App: arrivals are seen only while the app is open. %@",
                    .text(why)),
                status: .needed, action: .requestAlways, actionTitle: LocalizedText("Change to Always"))
        case .whenInUse:
            return Step(
                id: .location, title: always,
                explanation: LocalizedText(
                    "Location is set to While Using the App. In Settings, choose Location › Always. %@", .text(why)),
                status: .blocking, action: .openSettings, actionTitle: settings)
        case .denied:
            return Step(
                id: .location, title: always,
                explanation: LocalizedText(
                    "Location access is off for this app. In Settings, choose Location › Always. %@", .text(why)),
                status: .blocking, action: .openSettings, actionTitle: settings)
        case .restricted:
            return Step(
                id: .location, title: always,
                explanation: LocalizedText(
                    "Location access is restricted on this phone (Screen Time or a device profile). "
                        + "Ask whoever manages the phone, or check in by hand."),
                status: .blocking, action: .none)
        }
    }

    private static func precise(_ permissions: Permissions) -> Step {
        let title = LocalizedText("Precise Location")
        if permissions.preciseLocation {
            return Step(
                id: .preciseLocation, title: title, explanation: LocalizedText("On: iOS can detect beacons."),
                status: .done, action: .none)
        }
        return Step(
            id: .preciseLocation, title: title,
            explanation: LocalizedText(
                "Precise Location is off (reduced accuracy). iOS does not detect beacons then. "
                    + "In Settings, choose Location › Precise Location."),
            status: .blocking, action: .openSettings, actionTitle: LocalizedText("Open Settings"))
    }

    private static func bluetooth(_ state: Permissions.Bluetooth) -> Step {
        let title = LocalizedText("Bluetooth")
        let settings = LocalizedText("Open Settings")
        switch state {
        case .poweredOn:
            return Step(
                id: .bluetooth, title: title, explanation: LocalizedText("On: beacons can be heard."), status: .done,
                action: .none)
        case .unknown:
            return Step(
                id: .bluetooth, title: title,
                explanation: LocalizedText(
                    "Not checked yet. Attendance uses Bluetooth to confirm that a work site's beacon is genuine; "
                        + "iOS asks once whether it may."),
                status: .needed, action: .requestBluetooth, actionTitle: LocalizedText("Check Bluetooth"))
        case .poweredOff:
            return Step(
                id: .bluetooth, title: title,
                explanation: LocalizedText(
                    "Bluetooth is off, so beacons cannot be heard. Turn it on in Control Center or "
                        + "Settings › Bluetooth. (Turning it off in Control Center only disconnects accessories "
                        + "until tomorrow; use Settings.)"
                ),
                status: .blocking, action: .openSettings, actionTitle: settings)
        case .unauthorized:
            return Step(
                id: .bluetooth, title: title,
                explanation: LocalizedText(
                    "Bluetooth access is denied for this app. In Settings, turn on Bluetooth for it."),
                status: .blocking, action: .openSettings, actionTitle: settings)
        case .unsupported:
            return Step(
                id: .bluetooth, title: title,
                explanation: LocalizedText("This phone has no Bluetooth LE. Check in by hand from the Today screen."),
                status: .blocking, action: .none)
        }
    }

    private static func backgroundRefresh(_ available: Bool) -> Step {
        let title = LocalizedText("Background App Refresh")
        if available {
            return Step(
                id: .backgroundRefresh, title: title,
                explanation: LocalizedText(
                    "On: events recorded offline are sent later even if you do not open the app."),
                status: .done, action: .none)
        }
        return Step(
            id: .backgroundRefresh, title: title,
            explanation: LocalizedText(
                "Off (or Low Power Mode is on). Check-ins are still recorded, but ones made offline are sent only "
                    + "when you next open the app or arrive at work. In Settings › General › Background App Refresh, "
                    + "turn it on for this app."),
            status: .optional, action: .openSettings, actionTitle: LocalizedText("Open Settings"))
    }

    private static func notifications(_ state: PermissionSnapshot.Authorization) -> Step {
        let title = LocalizedText("Notifications")
        let why = LocalizedText("If automatic detection stops working, the app reminds you to check in by hand.")
        switch state {
        case .authorized:
            return Step(id: .notifications, title: title, explanation: why, status: .done, action: .none)
        case .notDetermined:
            return Step(
                id: .notifications, title: title, explanation: why, status: .needed, action: .requestNotifications,
                actionTitle: LocalizedText("Allow notifications"))
        case .denied, .unavailable:
            return Step(
                id: .notifications, title: title,
                explanation: LocalizedText("Off: you will not be reminded when automatic detection stops working."),
                status: .optional, action: .openSettings, actionTitle: LocalizedText("Open Settings"))
        }
    }

    private static func motion(_ state: PermissionSnapshot.Authorization) -> Step {
        let title = LocalizedText("Motion & Fitness")
        let why = LocalizedText(
            "Knowing you are walking through the door helps decide faster and avoids check-ins when you only pass by.")
        switch state {
        case .authorized:
            return Step(id: .motion, title: title, explanation: why, status: .done, action: .none)
        case .notDetermined:
            return Step(
                id: .motion, title: title, explanation: why, status: .needed, action: .requestMotion,
                actionTitle: LocalizedText("Allow motion"))
        case .denied:
            return Step(
                id: .motion, title: title,
                explanation: LocalizedText(
                    "Off: check-ins rely on signal strength alone and may take longer. %@", .text(why)),
                status: .optional, action: .openSettings, actionTitle: LocalizedText("Open Settings"))
        case .unavailable:
            return Step(
                id: .motion, title: title,
                explanation: LocalizedText("This phone has no motion coprocessor; signal strength alone decides."),
                status: .optional, action: .none)
        }
    }
}
