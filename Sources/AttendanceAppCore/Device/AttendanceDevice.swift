import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation

public import protocol OpenAPIRuntime.ClientTransport

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
        /// Opens the device's database at a path (a file; the simulator keeps its phones' in memory).
        public var openStore: @Sendable (_ path: String) throws -> DeviceStore = { try DeviceStore.open(path: $0) }
        /// How enrollment, configuration and the employee's record reach the server: `nil` for
        /// URLSession; the simulator's network otherwise, its bytes counted in `traffic`.
        public var transport: (any ClientTransport)?
        public var traffic: TrafficMeter?
        /// How long a request of the enrollment, configuration and record clients may take before
        /// the server counts as unreachable (on URLSession).
        public var requestTimeoutSeconds: Double = 15
        /// Where a background refresh gets the configuration: `nil` for the server
        /// (`GET /v1/me/configuration`); the simulator's employer otherwise.
        public var fetchConfiguration: (@Sendable (_ serverURL: URL, _ token: String) async throws -> Configuration)?
        /// The delivery's retry jitter (`nil`: random); the simulator's phones are reproducible.
        public var jitterSeed: UInt64?
        /// The configuration the engine runs with, at each launch, enrollment and refresh: where
        /// the location service learns the sites' geofences (`RegionMonitor`).
        public var configurationApplied: @Sendable (Configuration) -> Void = { _ in }
        /// Whether the app's protected files can be read now: false before the first unlock after
        /// a reboot (iOS's data protection; the enrollment, the Keychain item and the database all
        /// need it). Always true on Linux and in the simulator unless a test says otherwise.
        public var protectedDataReadable: @Sendable () -> Bool = { true }
        /// Where the callbacks that came before the first unlock are kept: a file iOS lets the app
        /// write then (no file protection). `nil`: `before-first-unlock.json` in the device's directory.
        public var preUnlockJournalURL: URL?

        public init(
            clock: any AttendanceClock, radio: any BeaconRadio, motion: any MotionProvider,
            background: any BackgroundTime,
            notifier: any Notifier, telemetry: (any TelemetrySink)? = nil,
            makeTimers: @escaping @Sendable (@escaping @Sendable (String) -> Void) -> any TimerScheduler,
            makeUploader: (@Sendable (HTTPUploader.Settings) -> any Uploader)? = nil,
            secrets: any SecretStore, appVersion: String? = nil, deviceName: String? = nil,
            reportError: @escaping @Sendable (String, any Error) -> Void = { context, error in
                FileHandle.standardError.write(Data("attendance: \(context): \(error)\n".utf8))
            }
        ) {
            self.clock = clock
            self.radio = radio
            self.motion = motion
            self.background = background
            self.notifier = notifier
            self.telemetry = telemetry
            self.makeTimers = makeTimers
            self.makeUploader = makeUploader ?? { HTTPUploader(settings: $0, clock: clock) }
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
        case journalOverflow(dropped: Int, kept: Int)
        case unknownSite(String)

        /// What went wrong, for the screen.
        public var text: LocalizedText {
            switch self {
            case .notEnrolled:
                LocalizedText(
                    "This phone is not enrolled yet: enter the server address and the code from your administrator.")
            case .tokenMissing(let name):
                LocalizedText(
                    "The device token '%@' is missing from the Keychain (restored from a backup to a new phone?). "
                        + "Enroll again.", .verbatim(name))
            case .unreadableEnrollment(let path, let reason):
                LocalizedText("The enrollment file %@ could not be read: %@", .verbatim(path), .verbatim(reason))
            case .unknownSite(let beacon):
                LocalizedText("The beacons %@ are not one of your employer's sites.", .verbatim(beacon))
            case .journalOverflow(let dropped, let kept):
                LocalizedText(
                    "%lld region events from before the first unlock were given up (the oldest); %lld were kept.",
                    .count(dropped), .count(kept))
            }
        }

        public var description: String { text.english }
    }

    static let tokenName = "deviceToken"

    public let directory: URL
    private let platform: Platform
    private var enrollment: EnrollmentRecord?
    public private(set) var runtime: AttendanceRuntime?
    /// What the phone lets the app do, not yet told to the server (tried again on the next drain
    /// or network return; the adapters report it again at every launch).
    private var unreportedPermissions: (permissions: Permissions, at: Date)?
    /// This process's lifecycle: launched once, inputs held until it has.
    public private(set) var lifecycle = DeviceLifecycle()
    /// The inbox the adapters post to from any thread, in order; `run()` consumes it.
    private let inbox: AsyncStream<Posted>
    private let inboxWriter: AsyncStream<Posted>.Continuation

    /// An input as posted: when, and who waits for it to be handled.
    private struct Posted: Sendable {
        var input: DeviceInput
        var at: Date
        var whenHandled: (@Sendable () -> Void)?
    }
    /// Inputs set aside because the phone is not enrolled (nothing to decide with them).
    public private(set) var setAsideCount = 0
    /// Callers whose input waits for the launch under way (resumed once it was handled).
    private var waitingForLaunch: [CheckedContinuation<Void, Never>] = []

    public init(directory: URL, platform: Platform) {
        self.directory = directory
        self.platform = platform
        (inbox, inboxWriter) = AsyncStream.makeStream(of: Posted.self)
    }

    static let enrollmentFileName = "enrollment.json"
    var enrollmentURL: URL { directory.appendingPathComponent(Self.enrollmentFileName) }

    /// Whether the enrollment file in `directory` can be opened now: on iOS not before the first
    /// unlock after a reboot (its class is complete until first user authentication, like the
    /// database and the Keychain item). No enrollment file: nothing protected to read.
    public static func enrollmentReadable(in directory: URL) -> Bool {
        let path = directory.appendingPathComponent(enrollmentFileName).path
        guard FileManager.default.fileExists(atPath: path) else { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        try? handle.close()
        return true
    }
    var reportedPermissionsURL: URL { directory.appendingPathComponent("reported-permissions.json") }
    var databasePath: String { directory.appendingPathComponent("attendance.sqlite").path }
    var preUnlockJournal: PreUnlockJournal {
        PreUnlockJournal(
            url: platform.preUnlockJournalURL ?? directory.appendingPathComponent("before-first-unlock.json"))
    }

    public var isEnrolled: Bool { enrollment != nil }

    // MARK: - The inbox

    /// From an Apple callback, on any thread: kept in the order posted and handled by `run()`,
    /// after the launch. Stamped with the clock now, when iOS reported it: an engine event, and
    /// the launch it starts, are handled at that time however long they waited. Failures go to
    /// `reportError`. `whenHandled` is called once the input was handled (or failed, or was set
    /// aside): what iOS lets the app finish before it suspends it waits for that (the background
    /// time's expiry, whose decision must be committed first).
    public nonisolated func post(_ input: DeviceInput, whenHandled: (@Sendable () -> Void)? = nil) {
        let now = platform.clock.now()
        inboxWriter.yield(Posted(input: input.stamped(now), at: now, whenHandled: whenHandled))
    }

    /// No more inputs will be posted: `run()` returns once those already posted were handled.
    public nonisolated func finishInbox() {
        inboxWriter.finish()
    }

    /// Handles what is posted, one input at a time, until `finishInbox()` (or for as long as the
    /// process lives).
    public func run() async {
        for await posted in inbox {
            do { try await receive(posted.input, at: posted.at) } catch {
                platform.reportError("\(posted.input)", error)
            }
            posted.whenHandled?()
        }
    }

    /// One input through the lifecycle, now (the inbox's consumer, the simulator, a background
    /// task and the screens' own calls). Returns once it was handled: an input that arrives
    /// while the launch is under way waits for it, in order (its failure is reported by the
    /// launch's caller). `at`: when the platform reported it (the inbox's stamp); a launch it
    /// starts is handled at that time, else at the clock's.
    public func receive(_ input: DeviceInput, at: Date? = nil) async throws {
        let actions = lifecycle.receive(input)
        if actions.isEmpty, case .launching = lifecycle.state {
            await withCheckedContinuation { waitingForLaunch.append($0) }
            return
        }
        try await perform(actions, at: at)
    }

    private func perform(_ actions: [DeviceLifecycle.Action], at: Date? = nil) async throws {
        var firstError: (any Error)?
        for action in actions {
            do {
                try await perform(action, at: at)
            } catch {
                // Each held input is still tried; the first failure is the caller's.
                if firstError == nil { firstError = error } else { platform.reportError("after a failed input", error) }
            }
        }
        if let firstError { throw firstError }
    }

    private func perform(_ action: DeviceLifecycle.Action, at: Date?) async throws {
        switch action {
        case .startRuntime(let reason):
            defer { resumeWaitingForLaunch() }
            guard platform.protectedDataReadable() else {
                // Before the first unlock: region and location callbacks wait in the journal.
                return try await perform(lifecycle.runtimeLocked())
            }
            let enrolled: Bool
            do {
                enrolled = try await startRuntime(reason, at: at)
            } catch {
                lifecycle.runtimeFailed()
                throw error
            }
            try await perform(lifecycle.runtimeStarted(enrolled: enrolled))
        case .deliver(let input):
            try await deliver(input)
        case .refreshConfiguration:
            try await refreshConfiguration()
        case .setAside:
            setAsideCount += 1
        case .journal(let input):
            guard case .engine(let event, let posted) = input else { return }
            do {
                try preUnlockJournal.append(event, at: posted ?? platform.clock.now())
            } catch {
                lifecycle.journalFailed(input)
                platform.reportError("keeping a callback that came before the first unlock", error)
            }
        }
    }

    private func resumeWaitingForLaunch() {
        let waiting = waitingForLaunch
        waitingForLaunch = []
        for caller in waiting { caller.resume() }
    }

    private func deliver(_ input: DeviceInput) async throws {
        guard let runtime else { throw DeviceError.notEnrolled }
        switch input {
        case .launch, .launchedInBackground, .backgroundRefresh, .protectedDataAvailable:
            return
        case .engine(let event, let at):
            try await runtime.send(event, at: at)
            if case .permissionsChanged(let permissions) = event {
                unreportedPermissions = (permissions, platform.clock.now())
                await reportPermissions()
            }
        case .timer(let name):
            try await runtime.timerFired(name)
        case .drain:
            try await runtime.drain()
            await reportPermissions()
        case .networkReachable:
            try await runtime.networkBecameReachable()
            await reportPermissions()
        }
    }

    /// Restores the enrollment and the engine, which then settles (once per process). Not
    /// enrolled: `false`, the app shows enrollment.
    private func startRuntime(_ reason: LaunchReason, at: Date?) async throws -> Bool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if enrollment == nil, FileManager.default.fileExists(atPath: enrollmentURL.path) {
            do {
                enrollment = try JSONDecoder().decode(EnrollmentRecord.self, from: Data(contentsOf: enrollmentURL))
            } catch {
                throw DeviceError.unreadableEnrollment(path: enrollmentURL.path, reason: "\(error)")
            }
        }
        let journal = readPreUnlockJournal()
        guard let enrollment else {
            // Nothing can decide with them: set aside, like the process's own inputs.
            setAsideCount += journal.entries.count
            clearPreUnlockJournal()
            return false
        }
        let runtime = try runtime ?? makeRuntime(enrollment)
        guard let first = journal.entries.first else {
            try await begin(runtime, reason, at: at)
            return true
        }
        // iOS launched the app for the first of them: the runtime launches as of then, and the
        // engine hears each one at the time iOS delivered it, then what this process holds.
        try await begin(runtime, DeviceInput.engine(first.event).launchReason ?? reason, at: first.at)
        for entry in journal.entries { try await runtime.send(entry.event, at: entry.at) }
        if journal.dropped > 0 {
            platform.reportError(
                "replaying the callbacks kept before the first unlock",
                DeviceError.journalOverflow(dropped: journal.dropped, kept: journal.entries.count))
        }
        clearPreUnlockJournal()
        return true
    }

    /// The journal of callbacks kept before the first unlock; an unreadable one is reported and
    /// taken as empty (kept on disk, renamed, for Diagnostics).
    private func readPreUnlockJournal() -> PreUnlockJournal.Contents {
        let journal = preUnlockJournal
        do { return try journal.read() } catch {
            platform.reportError("reading the callbacks kept before the first unlock", error)
            let aside = journal.url.appendingPathExtension("unreadable")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: journal.url, to: aside)
            return PreUnlockJournal.Contents()
        }
    }

    private func clearPreUnlockJournal() {
        do { try preUnlockJournal.clear() } catch {
            platform.reportError("emptying the callbacks kept before the first unlock", error)
        }
    }

    // MARK: - Calls from the screens

    /// The process's launch (opened by the employee, or relaunched by iOS for a region event,
    /// a background refresh or after a reboot): once per process; later calls do nothing.
    public func launch(_ reason: LaunchReason) async throws {
        try await receive(.launch(reason))
    }

    /// Enrolls with the code from the form, stores the token and the configuration, and starts
    /// the engine. `phoneName`: what the employee called the phone (the console shows it); `nil`,
    /// the platform's name. Throws `EnrollmentError` with words for the screen.
    public func enroll(serverURL: URL, code: String, phoneName: String? = nil) async throws {
        let enrolled = try await enrollmentClient(serverURL).enroll(
            code: code, deviceName: phoneName ?? platform.deviceName, appVersion: platform.appVersion)
        try await adopt(enrolled)
    }

    /// Enrollment and configuration over the platform's transport (URLSession by default).
    private func enrollmentClient(_ serverURL: URL) -> EnrollmentClient {
        guard let transport = platform.transport else {
            return EnrollmentClient(
                serverURL: serverURL, clock: platform.clock, timeoutSeconds: platform.requestTimeoutSeconds)
        }
        return EnrollmentClient(
            serverURL: serverURL, clock: platform.clock, transport: transport, traffic: platform.traffic)
    }

    /// Keeps an enrollment made elsewhere (the form's, or the simulator's): the token in the
    /// secret store, the record on disk, then the engine starts.
    public func adopt(_ enrolled: EnrolledDevice) async throws {
        try platform.secrets.write(enrolled.deviceToken, as: Self.tokenName)
        let record = EnrollmentRecord(
            serverURL: enrolled.serverURL, userID: enrolled.userID.rawValue,
            deviceID: enrolled.deviceID.rawValue, configuration: enrolled.configuration)
        try save(record)
        enrollment = record
        try await begin(try makeRuntime(record), .userOpened, at: nil)
        defer { resumeWaitingForLaunch() }
        try await perform(lifecycle.enrolled())
    }

    /// Fetches the remote configuration (on launch, on background refresh) and hands it to the
    /// engine, which validates and applies it.
    public func refreshConfiguration() async throws {
        guard var record = enrollment, let runtime else { throw DeviceError.notEnrolled }
        guard let token = try platform.secrets.read(Self.tokenName) else {
            throw DeviceError.tokenMissing(Self.tokenName)
        }
        let configuration: Configuration
        if let fetch = platform.fetchConfiguration {
            configuration = try await fetch(record.serverURL, token)
        } else {
            configuration = try await enrollmentClient(record.serverURL).configuration(token: token)
        }
        try await runtime.send(.configurationUpdated(configuration))
        record.configuration = await runtime.engine.configuration
        try save(record)
        enrollment = record
        platform.configurationApplied(record.configuration)
    }

    /// An event the employee caused (the manual sheet): after the launch, in order; throws
    /// `notEnrolled` before enrollment, so the screen can say so.
    public func send(_ event: EngineEvent) async throws {
        if case .notEnrolled = lifecycle.state { throw DeviceError.notEnrolled }
        try await receive(.engine(event))
        if case .notEnrolled = lifecycle.state { throw DeviceError.notEnrolled }
    }

    /// Tells the server what the phone lets the app do, so HR sees a phone whose detection is
    /// blocked (`PUT /v1/me/device-state`). A failure is kept for the next try and reported.
    private func reportPermissions() async {
        guard let pending = unreportedPermissions else { return }
        if pending.permissions == lastReportedPermissions() {
            unreportedPermissions = nil
            return
        }
        do {
            try await recordClient().report(
                pending.permissions, appVersion: platform.appVersion, observedAt: pending.at)
            if unreportedPermissions?.at == pending.at { unreportedPermissions = nil }
            try JSONEncoder().encode(pending.permissions).write(to: reportedPermissionsURL, options: .atomic)
        } catch {
            platform.reportError("reporting the phone's permissions to the server", error)
        }
    }

    /// What the server was last told (kept on disk: every launch reports again, and only a
    /// change is sent).
    private func lastReportedPermissions() -> Permissions? {
        guard let data = try? Data(contentsOf: reportedPermissionsURL) else { return nil }
        return try? JSONDecoder().decode(Permissions.self, from: data)
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
        if let transport = platform.transport {
            return RecordClient(
                serverURL: record.serverURL, token: token, clock: platform.clock, transport: transport,
                traffic: platform.traffic)
        }
        return RecordClient(
            serverURL: record.serverURL, token: token, clock: platform.clock,
            timeoutSeconds: platform.requestTimeoutSeconds)
    }

    /// Fetches and checks the receipts for this phone's rows in the server's ledger (LEDGER.md,
    /// "Receipts"); a problem is kept, reported to the server and shown in Diagnostics.
    @discardableResult
    public func checkReceipts() async throws -> LedgerReceiptState? {
        guard let runtime, let record = enrollment else { throw DeviceError.notEnrolled }
        let keeper = ReceiptKeeper(
            store: await runtime.store, source: try recordClient(), deviceID: DeviceID(record.deviceID))
        return try await keeper.refresh(now: await runtime.now())
    }

    /// Sends the scanner's survey of one of the employee's sites to the server (the console's site
    /// survey page); returns the server's id for it and how many spots it found to change.
    public func submit(_ survey: SiteSurvey) async throws -> (id: Int64, findings: Int) {
        guard let runtime else { throw DeviceError.notEnrolled }
        let configuration = await runtime.engine.configuration
        let site = configuration.sites.first { $0.beacon(defaultUUID: configuration.proximityUUID) == survey.site }
        guard let siteID = site?.siteID else { throw DeviceError.unknownSite(survey.site.description) }
        return try await recordClient().submitSurvey(siteID: siteID.rawValue, spots: survey.spots)
    }

    public func timerFired(_ name: String) async throws { try await receive(.timer(name)) }
    public func drain() async throws { try await receive(.drain) }
    public func networkBecameReachable() async throws { try await receive(.networkReachable) }

    /// The screens' snapshot; `nil` before enrollment.
    public func status(regionStates: [BeaconRegion: RegionState] = [:]) async throws -> DeviceStatus? {
        guard let runtime, let record = enrollment else { return nil }
        let identity = DeviceStatus.Enrollment(
            serverURL: record.serverURL, userID: UserID(record.userID), deviceID: DeviceID(record.deviceID))
        return try await runtime.status(enrollment: identity, regionStates: regionStates)
    }

    /// The Diagnostics share sheet's file: everything a field test needs, in one file.
    public func diagnosticsFiles() async throws -> [(name: String, contents: String)] {
        guard let runtime, let record = enrollment else { throw DeviceError.notEnrolled }
        let export = try await runtime.store.diagnosticsExport()
        let file = DiagnosticsModel.fieldTestFile(
            export, deviceID: record.deviceID, appVersion: platform.appVersion,
            configuration: await runtime.engine.configuration, at: await runtime.now())
        let mine = try MyRecord.file(store: await runtime.store, deviceID: record.deviceID)
        return [file] + (mine.map { [$0] } ?? [])
    }

    private func save(_ record: EnrollmentRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Complete-until-first-unlock on iOS (set by the app on the directory): readable when iOS
        // relaunches the locked phone for a region event.
        try encoder.encode(record).write(to: enrollmentURL, options: .atomic)
    }

    /// Makes `runtime` this process's, tells the platform its configuration, and launches it.
    private func begin(_ runtime: AttendanceRuntime, _ reason: LaunchReason, at: Date?) async throws {
        self.runtime = runtime
        platform.configurationApplied(await runtime.engine.configuration)
        try await runtime.launch(reason, at: at)
    }

    private func makeRuntime(_ record: EnrollmentRecord) throws -> AttendanceRuntime {
        guard let token = try platform.secrets.read(Self.tokenName) else {
            throw DeviceError.tokenMissing(Self.tokenName)
        }
        var siteIDs: [SiteBeacon: SiteID] = [:]
        for site in record.configuration.sites {
            if let id = site.siteID { siteIDs[site.beacon(defaultUUID: record.configuration.proximityUUID)] = id }
        }
        let settings = HTTPUploader.Settings(
            baseURL: record.serverURL, deviceToken: token, appVersion: platform.appVersion, siteIDs: siteIDs)
        let store = try platform.openStore(databasePath)
        let inbox = inboxWriter
        let clock = platform.clock
        let timers = platform.makeTimers { name in inbox.yield(Posted(input: .timer(name), at: clock.now())) }
        let ports = AttendanceRuntime.Ports(
            clock: platform.clock, radio: platform.radio, motion: platform.motion, timers: timers,
            background: platform.background, notifier: platform.notifier,
            uploader: platform.makeUploader(settings), telemetry: platform.telemetry)
        if let seed = platform.jitterSeed {
            return try AttendanceRuntime(
                store: store, configuration: record.configuration, ports: ports,
                jitterSeed: seed)
        }
        return try AttendanceRuntime(store: store, configuration: record.configuration, ports: ports)
    }
}
