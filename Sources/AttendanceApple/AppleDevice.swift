#if canImport(UIKit) && os(iOS)
import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import CoreBluetooth
import Foundation
import UIKit

/// Wires the Apple adapters into one `AttendanceDevice`. Created once, on the main thread, at
/// launch (including background relaunches), so the single location manager exists before
/// iOS delivers the event that woke the app.
@MainActor
public final class AppleDevice {
    // Immutable and Sendable: usable from any context, in any module.
    public nonisolated let device: AttendanceDevice
    public nonisolated let location: LocationService
    public nonisolated let notifications: NotificationAdapter
    public nonisolated let reachability = ReachabilityMonitor()
    public nonisolated let challenge: BeaconChallengeClient
    public nonisolated let telemetry = OSLogTelemetry()
    /// iOS's separate permission reports, made one snapshot (`PermissionMonitor`): its engine part
    /// goes to the engine, the whole to the screens.
    private nonisolated let permissions = Locked(PermissionMonitor())
    private nonisolated let permissionListener = Locked<(@Sendable (PermissionSnapshot) -> Void)?>(nil)
    private nonisolated let report: @Sendable (PermissionMonitor.Report) -> Void
    /// The runtime's uploader: one per process, created at launch (a background session's
    /// identifier may be open once, and iOS delivers a finished upload's events to it).
    private let uploader: BackgroundSessionUploader
    /// The background time: held by the engine and by each region or location callback.
    private let background: BackgroundTimeAdapter

    /// `reason`: why iOS started the process, when it says (the employee opened the app, a
    /// Bluetooth restoration); `nil` for a background launch whose reason the first callback
    /// names (the SwiftUI lifecycle gives no launch options). It is the inbox's first input,
    /// before any callback can be posted.
    public init(launch reason: LaunchReason?) {
        let location = LocationService()
        let notifications = NotificationAdapter()
        let telemetry = telemetry
        let library = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let support = library.appendingPathComponent("Attendance", isDirectory: true)
        try? FileManager.default.createDirectory(at: support, withIntermediateDirectories: true,
                                                 attributes: [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication])
        // The journal of callbacks before the first unlock: the one place written without protection.
        let beforeUnlock = library.appendingPathComponent("AttendanceBeforeUnlock", isDirectory: true)
        try? FileManager.default.createDirectory(
            at: beforeUnlock, withIntermediateDirectories: true, attributes: [.protectionKey: FileProtectionType.none])
        let box = Locked<AttendanceDevice?>(nil)
        let background = BackgroundTimeAdapter(expiring: { done in
            // The background task stays open until the engine's decision is committed.
            guard let device = box.value else { return done() }
            device.post(.engine(.backgroundTimeExpiring), whenHandled: done)
        })
        let uploader = BackgroundSessionUploader(
            folder: support.appendingPathComponent("Uploads", isDirectory: true),
            timeLeft: { background.remainingSeconds() },
            onLateAnswer: { box.value?.post(.drain) },
            reportError: { context, error in telemetry.error(context, error) })
        self.uploader = uploader
        self.background = background
        var platform = AttendanceDevice.Platform(
            clock: SystemClock(), radio: location, motion: MotionAdapter(), background: background, notifier: notifications, telemetry: telemetry,
            makeTimers: { fire in DispatchTimerScheduler(fire: fire) },
            makeUploader: { settings in
                uploader.configure(settings)
                return uploader
            },
            secrets: KeychainSecretStore(),
            appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
            deviceName: UIDevice.current.name,
            reportError: { context, error in telemetry.error(context, error) })
        // The sites' geofences reach the location service with every configuration the engine takes.
        platform.configurationApplied = { [location] configuration in location.apply(configuration) }
        platform.protectedDataReadable = { AttendanceDevice.enrollmentReadable(in: support) }
        platform.preUnlockJournalURL = beforeUnlock.appendingPathComponent("journal.json")
        device = AttendanceDevice(directory: support, platform: platform)
        box.value = device
        // First in the inbox: every callback iOS delivers after this waits for the launch.
        device.post(reason.map(DeviceInput.launch) ?? .launchedInBackground)
        self.location = location
        self.notifications = notifications
        let device = device
        let permissions = permissions
        let listener = permissionListener
        let report: @Sendable (PermissionMonitor.Report) -> Void = { part in
            let changes = permissions.withLock { $0.handle(part) }
            if let engine = changes.engine { device.post(.engine(.permissionsChanged(engine))) }
            if let screens = changes.screens { listener.value?(screens) }
        }
        self.report = report
        // A Bluetooth relaunch names the launch (if nothing else did first).
        challenge = BeaconChallengeClient(
            onState: { state in report(.bluetooth(state)) }, onRestored: { device.post(.launch(.bluetoothEvent)) })
        // Reading the authorization shows no prompt. Allowed before: the manager starts now (no
        // prompt either) and reports the power state; not asked yet: onboarding's Bluetooth step
        // explains it first, then starts it.
        switch CBManager.authorization {
        case .allowedAlways: challenge.start()
        case .denied, .restricted: report(.bluetooth(.unauthorized))
        default: break
        }
        report(.backgroundRefresh(available: UIApplication.shared.backgroundRefreshStatus == .available))
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.backgroundRefreshStatusDidChangeNotification, object: nil, queue: .main
        ) { _ in
            MainActor.assumeIsolated {
                report(.backgroundRefresh(available: UIApplication.shared.backgroundRefreshStatus == .available))
            }
        }
        if UserDefaults.standard.bool(forKey: Self.alwaysPromptShownKey) { report(.alwaysPromptShown) }
        // Motion and notifications have no change callback: read at launch and on every return
        // to the foreground (the employee may have changed them in Settings).
        refreshPermissions()
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.refreshPermissions() }
        }
        // The first unlock after a reboot: what waited for protected data goes on (posted at every
        // unlock; only a phone that was locked since it started acts on it).
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.protectedDataDidBecomeAvailableNotification, object: nil, queue: .main
        ) { _ in
            device.post(.protectedDataAvailable)
        }
        // The employee opened the app (also a process iOS started in the background or prewarmed).
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
        ) { _ in
            device.post(.launch(.userOpened))
        }
        // Every callback goes into the device's inbox, in the order iOS delivered it; the inbox
        // waits for the launch and hands them to the engine one at a time. A region or location
        // callback holds background time from now (on the main thread, before the delegate method
        // returns) until the inbox has handled it: the launch it may cause runs in the long window.
        location.addListener { [background] callback in
            switch callback {
            case .engine(let event):
                let input = DeviceInput.engine(event)
                guard input.isRegionOrLocationCallback else { return device.post(input) }
                let hold = background.hold()
                device.post(input, whenHandled: { background.release(hold) })
            case .authorization(let access, let precise):
                report(.location(access, precise: precise))
            case .failure(let message):
                telemetry.error("location", NSError(domain: "Location", code: 0, userInfo: [NSLocalizedDescriptionKey: message]))
            case .ranged, .regionState, .budgetNotes:
                break
            }
        }
        reachability.start { device.post(.networkReachable) }
        Task { await device.run() }
        BackgroundRefresh.register(device: device) { context, error in telemetry.error(context, error) }
    }

    // MARK: - Permissions

    private static let alwaysPromptShownKey = "alwaysPromptShown"

    /// Everything iOS allows now, for the Permissions screen.
    public nonisolated var permissionSnapshot: PermissionSnapshot { permissions.value.snapshot }

    /// Who is told the whole snapshot on every change of any part (one listener: the app's model).
    public nonisolated func onPermissionChange(_ handler: @escaping @Sendable (PermissionSnapshot) -> Void) {
        permissionListener.value = handler
    }

    /// Reads again what iOS reports without a callback: motion, and notifications (asynchronously).
    public func refreshPermissions() {
        let report = report
        let notifications = notifications
        report(.motion(MotionAdapter.authorization))
        Task { report(.notifications(await notifications.authorization())) }
    }

    /// iOS's "Change to Always Allow" prompt, which it shows once per install; remembered so that
    /// onboarding offers Settings from then on.
    public func requestAlways() {
        UserDefaults.standard.set(true, forKey: Self.alwaysPromptShownKey)
        report(.alwaysPromptShown)
        location.requestAlways()
    }

    /// From `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: once the
    /// session's events are in (each answer already recorded on disk), iOS is released at once; a
    /// drain applies the answers in a background task of its own (and may send what is due).
    public func handleBackgroundSessionEvents(_ completion: @escaping () -> Void) {
        let box = SystemCompletion(call: completion)
        let device = device
        let background = background
        uploader.handleEvents {
            let hold = background.hold()
            device.post(.drain, whenHandled: { background.release(hold) })
            DispatchQueue.main.async { box.call() }
        }
    }

    /// UIKit's completion handler (not `Sendable` in its signature): called once, on the main queue.
    private struct SystemCompletion: @unchecked Sendable {
        let call: () -> Void
    }
}
#endif
