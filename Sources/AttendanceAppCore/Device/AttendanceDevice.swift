import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

/// The app's composition root, the same on iOS and in Linux tests: the durable store, the
/// enrollment, and the runtime built from them. The Apple adapters call it; the screens read
/// `status()`. Nothing here imports an Apple framework.
public actor AttendanceDevice {
    /// What the platform provides (CoreLocation, CoreMotion, … on iOS; recordings in tests).
    public struct Platform: Sendable {
        public var clock: any AttendanceClock
        public var radio: any BeaconRadio
        public var motion: any MotionProvider
        public var background: any BackgroundTime
        public var notifier: any Notifier
        public var telemetry: (any TelemetrySink)?
        /// Timers that call back with their name (the runtime's `timerFired`).
        public var makeTimers: @Sendable (@escaping @Sendable (String) -> Void) -> any TimerScheduler
        /// The delivery transport (the background-URLSession uploader on iOS).
        public var makeUploader: @Sendable (HTTPUploader.Settings) -> any Uploader
        public var secrets: any SecretStore
        public var appVersion: String?
        public var deviceName: String?
        /// Where failures with no caller to throw to go (a timer's work): OSLog on iOS.
        public var reportError: @Sendable (String, any Error) -> Void

        public init(clock: any AttendanceClock, radio: any BeaconRadio, motion: any MotionProvider, background: any BackgroundTime,
                    notifier: any Notifier, telemetry: (any TelemetrySink)? = nil,
                    makeTimers: @escaping @Sendable (@escaping @Sendable (String) -> Void) -> any TimerScheduler,
                    makeUploader: @escaping @Sendable (HTTPUploader.Settings) -> any Uploader = { HTTPUploader(settings: $0) },
                    secrets: any SecretStore, appVersion: String? = nil, deviceName: String? = nil,
                    reportError: @escaping @Sendable (String, any Error) -> Void = { context, error in
                        FileHandle.standardError.write(Data("attendance: \(context): \(error)\n".utf8))
                    }) {
            self.clock = clock
            self.radio = radio
            self.motion = motion
            self.background = background
            self.notifier = notifier
            self.telemetry = telemetry
            self.makeTimers = makeTimers
            self.makeUploader = makeUploader
            self.secrets = secrets
            self.appVersion = appVersion
            self.deviceName = deviceName
            self.reportError = reportError
        }
    }

    /// What is kept on disk about the enrollment (the token is in the `SecretStore`).
    struct EnrollmentRecord: Codable {
        var serverURL: URL
        var userID: String
        var deviceID: String
        var configuration: Configuration
    }

    public enum DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
        case notEnrolled
        case tokenMissing(String)
        case unreadableEnrollment(path: String, reason: String)

        public var description: String {
            switch self {
            case .notEnrolled: "This phone is not enrolled yet: enter the server address and the code from your administrator."
            case .tokenMissing(let name): "The device token '\(name)' is missing from the Keychain (restored from a backup to a new phone?). Enroll again."
            case .unreadableEnrollment(let path, let reason): "The enrollment file \(path) could not be read: \(reason)"
            }
        }
    }

    static let tokenName = "deviceToken"

    public let directory: URL
    private let platform: Platform
    private var enrollment: EnrollmentRecord?
    public private(set) var runtime: AttendanceRuntime?
    /// What the phone lets the app do, not yet told to the server (tried again on the next drain
    /// or network return; the adapters report it again at every launch).
    private var unreportedPermissions: (permissions: Permissions, at: Date)?

    public init(directory: URL, platform: Platform) {
        self.directory = directory
        self.platform = platform
    }

    var enrollmentURL: URL { directory.appendingPathComponent("enrollment.json") }
    var databasePath: String { directory.appendingPathComponent("attendance.sqlite").path }

    public var isEnrolled: Bool { enrollment != nil }

    /// Every launch (opened by the employee, or relaunched by iOS for a region event, a
    /// background refresh or after a reboot): restores the enrollment and the engine and lets it
    /// settle. Not enrolled: does nothing, the app shows enrollment.
    public func launch(_ reason: LaunchReason) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if enrollment == nil, FileManager.default.fileExists(atPath: enrollmentURL.path) {
            do {
                enrollment = try JSONDecoder().decode(EnrollmentRecord.self, from: Data(contentsOf: enrollmentURL))
            } catch {
                throw DeviceError.unreadableEnrollment(path: enrollmentURL.path, reason: "\(error)")
            }
        }
        guard let enrollment else { return }
        if runtime == nil { runtime = try makeRuntime(enrollment) }
        try await runtime?.launch(reason)
    }

    /// Enrolls with the code from the form, stores the token and the configuration, and starts
    /// the engine. Throws `EnrollmentError` with words for the screen.
    public func enroll(serverURL: URL, code: String) async throws {
        let client = EnrollmentClient(serverURL: serverURL)
        let enrolled = try await client.enroll(code: code, deviceName: platform.deviceName, appVersion: platform.appVersion)
        try platform.secrets.write(enrolled.deviceToken, as: Self.tokenName)
        let record = EnrollmentRecord(serverURL: enrolled.serverURL, userID: enrolled.userID.rawValue, deviceID: enrolled.deviceID.rawValue,
                                      configuration: enrolled.configuration)
        try save(record)
        enrollment = record
        runtime = try makeRuntime(record)
        try await runtime?.launch(.userOpened)
    }

    /// Fetches the remote configuration (on launch, on background refresh) and hands it to the
    /// engine, which validates and applies it.
    public func refreshConfiguration() async throws {
        guard var record = enrollment, let runtime else { throw DeviceError.notEnrolled }
        guard let token = try platform.secrets.read(Self.tokenName) else { throw DeviceError.tokenMissing(Self.tokenName) }
        let configuration = try await EnrollmentClient(serverURL: record.serverURL).configuration(token: token)
        try await runtime.send(.configurationUpdated(configuration))
        record.configuration = await runtime.engine.configuration
        try save(record)
        enrollment = record
    }

    /// An event from an Apple adapter (region, ranging, motion, permissions, …).
    public func send(_ event: EngineEvent) async throws {
        guard let runtime else { throw DeviceError.notEnrolled }
        try await runtime.send(event)
        if case .permissionsChanged(let permissions) = event {
            unreportedPermissions = (permissions, platform.clock.now())
            await reportPermissions()
        }
    }

    /// Tells the server what the phone lets the app do, so HR sees a phone whose detection is
    /// blocked (`PUT /v1/me/device-state`). A failure is kept for the next try and reported.
    private func reportPermissions() async {
        guard let pending = unreportedPermissions else { return }
        do {
            try await recordClient().report(
                pending.permissions, appVersion: platform.appVersion, observedAt: pending.at)
            if unreportedPermissions?.at == pending.at { unreportedPermissions = nil }
        } catch {
            platform.reportError("reporting the phone's permissions to the server", error)
        }
    }

    /// Motion history for the manual sheet's offered time: as far back as the engine accepts a
    /// manual check-in or check-out dated back (`manualBackdateMaxMinutes`). `nil` without
    /// enrollment, motion permission or history.
    public func motionForManualTime() async -> MotionSnapshot? {
        guard let runtime else { return nil }
        let minutes = await runtime.engine.configuration.manualBackdateMaxMinutes
        guard minutes > 0 else { return nil }
        return await platform.motion.snapshot(lookbackMinutes: minutes)
    }

    /// The employer's record of this employee and their correction requests (History), through
    /// the server. Throws `DeviceError` before enrollment or without the token.
    public func recordClient() throws -> RecordClient {
        guard let record = enrollment else { throw DeviceError.notEnrolled }
        guard let token = try platform.secrets.read(Self.tokenName) else {
            throw DeviceError.tokenMissing(Self.tokenName)
        }
        return RecordClient(serverURL: record.serverURL, token: token)
    }

    public func timerFired(_ name: String) async throws { try await runtime?.timerFired(name) }
    public func drain() async throws {
        try await runtime?.drain()
        await reportPermissions()
    }

    public func networkBecameReachable() async throws {
        try await runtime?.networkBecameReachable()
        await reportPermissions()
    }

    /// The screens' snapshot; `nil` before enrollment.
    public func status(regionStates: [BeaconRegion: RegionState] = [:]) async throws -> DeviceStatus? {
        guard let runtime, let record = enrollment else { return nil }
        let identity = DeviceStatus.Enrollment(serverURL: record.serverURL, userID: UserID(record.userID), deviceID: DeviceID(record.deviceID))
        return try await runtime.status(enrollment: identity, regionStates: regionStates)
    }

    /// The Diagnostics share sheet's files.
    public func diagnosticsFiles() async throws -> [(name: String, contents: String)] {
        guard let runtime, let record = enrollment else { throw DeviceError.notEnrolled }
        let export = try await runtime.store.diagnosticsExport()
        return DiagnosticsModel.exportFiles(export, deviceID: record.deviceID, at: await runtime.now())
    }

    private func save(_ record: EnrollmentRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Complete-until-first-unlock on iOS (set by the app on the directory): readable when iOS
        // relaunches the locked phone for a region event.
        try encoder.encode(record).write(to: enrollmentURL, options: .atomic)
    }

    private func makeRuntime(_ record: EnrollmentRecord) throws -> AttendanceRuntime {
        guard let token = try platform.secrets.read(Self.tokenName) else { throw DeviceError.tokenMissing(Self.tokenName) }
        var siteIDs: [SiteBeacon: SiteID] = [:]
        for site in record.configuration.sites {
            if let id = site.siteID { siteIDs[site.beacon(defaultUUID: record.configuration.proximityUUID)] = id }
        }
        let settings = HTTPUploader.Settings(baseURL: record.serverURL, deviceToken: token, appVersion: platform.appVersion, siteIDs: siteIDs)
        let store = try DeviceStore.open(path: databasePath)
        let box = RuntimeBox()
        let report = platform.reportError
        let timers = platform.makeTimers { name in
            Task {
                do { try await box.runtime?.timerFired(name) } catch { report("timer \(name)", error) }
            }
        }
        let ports = AttendanceRuntime.Ports(clock: platform.clock, radio: platform.radio, motion: platform.motion, timers: timers,
                                            background: platform.background, notifier: platform.notifier,
                                            uploader: platform.makeUploader(settings), telemetry: platform.telemetry)
        let runtime = try AttendanceRuntime(store: store, configuration: record.configuration, ports: ports)
        box.runtime = runtime
        return runtime
    }
}

/// Lets the timers created before the runtime call back into it.
private final class RuntimeBox: Sendable {
    private let stored = Locked<AttendanceRuntime?>(nil)
    var runtime: AttendanceRuntime? {
        get { stored.value }
        set { stored.value = newValue }
    }
}
