#if canImport(SwiftUI) && os(iOS)
    import AttendanceAppCore
    import AttendanceApple
    import AttendanceEngine
    import AttendanceModels
    import AttendanceSync
    import SwiftUI
    import UIKit

    /// The SwiftUI side of the view models: republishes the device's status every few seconds and on
    /// demand. Every string on screen comes from AttendanceAppCore's models, tested on Linux, or from
    /// the app's String Catalog (Resources/Localizable.xcstrings; `scripts/check-strings`).
    @MainActor
    final class AppModel: ObservableObject {
        @Published private(set) var status: DeviceStatus?
        @Published private(set) var permissions = PermissionSnapshot(engine: Permissions())
        @Published var enrollment = EnrollmentForm()
        @Published private(set) var scanner = ScannerModel(configuration: Configuration())
        /// The scanner's survey mode: the site being surveyed, its spots and findings (nil: not surveying).
        @Published var survey: SurveyModel?
        @Published var surveySpotLabel = ""
        @Published var surveySpotKind = SurveySpot.Kind.desk
        /// The last refusal or result of the survey's buttons, for the screen.
        @Published var surveyMessage: String?
        @Published var message: String?
        /// Where a tapped notification leads, until a screen has opened it.
        @Published var route: NotificationRoute?
        @Published private(set) var serverRecord: ServerRecordModel?
        @Published private(set) var week: WeekTimesheetModel?
        let format = DisplayFormat(catalogue: DisplayFormat.appBundle)
        private var apple: AppleDevice?
        private var scannerListener: UUID?
        private var refresh: Task<Void, Never>?

        func attach(_ apple: AppleDevice?) {
            guard let apple, self.apple == nil else { return }
            self.apple = apple
            apple.onPermissionChange { [weak self] snapshot in Task { @MainActor in self?.permissions = snapshot } }
            permissions = apple.permissionSnapshot
            apple.notifications.onRoute { [weak self] route in Task { @MainActor in self?.route = route } }
            refresh = Task { [weak self] in
                while !Task.isCancelled {
                    await self?.reload()
                    try? await Task.sleep(nanoseconds: 5_000_000_000)
                }
            }
        }

        func reload() async {
            guard let apple else { return }
            do {
                status = try await apple.device.status(regionStates: apple.location.regionStates)
            } catch {
                message = "\(error)"
            }
        }

        // MARK: - Actions

        /// History's server half: the employer's record and the requests, fetched when History opens.
        func loadServerRecord() async {
            guard let apple, let status else { return }
            do {
                // The receipts for this phone's rows, checked while History opens; a problem shows in
                // Diagnostics (and reaches the server), never stops History.
                do { try await apple.device.checkReceipts() } catch { message = "\(error)" }
                let client = try await apple.device.recordClient()
                let from = Date().addingTimeInterval(-31 * 86_400)
                let sessions = try await client.sessions(from: from, to: nil)
                let requests = try await client.requests()
                serverRecord = ServerRecordModel(
                    sessions: sessions, requests: requests,
                    phone: SessionHistory.sessions(events: status.events, open: status.openSessions),
                    siteNames: CorrectionRequestForm.siteNames(status, format: format),
                    format: format, now: Date())
            } catch {
                message = "\(error)"
            }
        }

        /// The week view: the server's timesheet of the week starting `weekStart` (nil: this week).
        func loadWeek(_ weekStart: String? = nil) async {
            guard let apple, let status else { return }
            let monday = weekStart ?? WeekTimesheetModel.weekStart(containing: Date(), timeZone: .current)
            do {
                let (days, weeks) = try await apple.device.recordClient().timesheet(
                    from: monday, to: WeekTimesheetModel.weekEnd(monday))
                week = WeekTimesheetModel(
                    weekStart: monday, days: days, weeks: weeks,
                    siteNames: CorrectionRequestForm.siteNames(status, format: format), format: format)
            } catch {
                message = "\(error)"
            }
        }

        /// The "Request a correction" sheet for a session of the server's record, or for a missed one.
        func correctionForm(for session: ServerSession?) async -> CorrectionRequestForm? {
            guard let apple, let status else { return nil }
            let evidence = CorrectionRequestForm.PhoneEvidence(
                motion: await apple.device.motionForManualTime(), session: session, status: status)
            return CorrectionRequestForm(
                target: session.map { .session($0) } ?? .missing,
                sites: CorrectionRequestForm.siteChoices(status, format: format), evidence: evidence)
        }

        /// Sends the request; nil when it was filed, otherwise what to show (the fields to fix, or the server's words).
        func file(_ form: CorrectionRequestForm) async -> String? {
            // NSLocalizedString, not String(localized:): Linux's Foundation, which the type-check uses, lacks it.
            guard let apple else {
                return NSLocalizedString("Not enrolled", comment: "Correction request: no enrollment")
            }
            do {
                let draft = try form.draft(now: Date())
                _ = try await apple.device.recordClient().file(draft)
                await loadServerRecord()
                return nil
            } catch let errors as FieldErrors {
                return errors.text(format)
            } catch {
                return describe(error)
            }
        }

        func perform(_ action: PermissionGuide.Action) {
            guard let apple else { return }
            switch action {
            case .requestWhenInUse: apple.location.requestWhenInUse()
            case .requestAlways: apple.requestAlways()
            case .requestNotifications:
                Task {
                    _ = await apple.notifications.requestAuthorization()
                    apple.refreshPermissions()
                }
            case .requestMotion:
                // CoreMotion asks on the first query.
                Task {
                    _ = await MotionAdapter().snapshot(lookbackMinutes: 1)
                    apple.refreshPermissions()
                }
            case .requestBluetooth: apple.challenge.start()
            case .openSettings:
                if let url = URL(string: UIApplication.openSettingsURLString) { UIApplication.shared.open(url) }
            case .none: break
            }
        }

        func enroll() async {
            guard let apple else { return }
            switch enrollment.validated() {
            case .failure(let errors): enrollment.failed(errors.text(format))
            case .success(let request):
                enrollment.submitting()
                do {
                    try await apple.device.enroll(
                        serverURL: request.url, code: request.code, phoneName: request.phoneName)
                    await reload()
                    enrollment.enrolled(userID: status?.enrollment?.userID.rawValue ?? "")
                } catch {
                    enrollment.failed(describe(error))
                }
            }
        }

        /// The manual sheet, with the time motion history offers.
        func manualOverride(_ kind: ManualOverride.Kind) async -> ManualOverride? {
            guard let apple, let status else { return nil }
            return ManualOverride(
                kind, format: format, status: status, motion: await apple.device.motionForManualTime())
        }

        func send(_ manual: ManualOverride) async -> ManualOverride {
            var manual = manual
            guard let apple else { return manual }
            switch manual.validated() {
            case .failure(let errors): message = errors.text(format)
            case .success(let event):
                do {
                    try await apple.device.send(event)
                    manual.sent(at: Date())
                    await reload()
                    if let status { manual.settle(with: status, format: format) }
                } catch { message = describe(error) }
            }
            return manual
        }

        func scanner(open: Bool) {
            guard let apple else { return }
            if open {
                let uuids = ScannerModel.rangedUUIDs(status)
                scanner = ScannerModel(configuration: Configuration(), siteNames: status?.siteNames ?? [:])
                scannerListener = apple.location.addListener { [weak self] callback in
                    guard case .ranged(let samples, let time) = callback else { return }
                    Task { @MainActor in
                        self?.scanner.ranged(samples, at: time)
                        self?.survey?.ranged(samples)
                    }
                }
                apple.location.setScannerRanging(uuids)
            } else {
                apple.location.setScannerRanging([])
                if let scannerListener { apple.location.removeListener(scannerListener) }
                scanner.reset()
            }
        }

        // MARK: - The scanner's survey mode

        func beginSurvey(of site: SiteBeacon) {
            survey = SurveyModel(site: site, status: status)
            surveyMessage = nil
        }

        func startSpot() {
            surveyMessage = survey?.start(label: surveySpotLabel, kind: surveySpotKind)?.text(format)
        }

        func saveSpot() {
            guard case .some(let result) = survey?.save(at: Date()) else { return }
            switch result {
            case .success: surveySpotLabel = ""; surveyMessage = nil
            case .failure(let errors): surveyMessage = errors.text(format)
            }
        }

        func sendSurvey() async {
            guard let apple, let survey else { return }
            do {
                let sent = try await apple.device.submit(survey.survey)
                surveyMessage = format.string(
                    LocalizedText("Survey sent: %lld spots to change.", .count(sent.findings)))
                self.survey = nil
            } catch {
                surveyMessage = describe(error)
            }
        }

        func diagnosticsFiles() async -> [URL] {
            guard let apple else { return [] }
            do {
                return try await apple.device.diagnosticsFiles().map { file in
                    let url = FileManager.default.temporaryDirectory.appendingPathComponent(file.name)
                    try Data(file.contents.utf8).write(to: url, options: .atomic)
                    return url
                }
            } catch {
                message = describe(error)
                return []
            }
        }

        /// An error for the screen: the app core's in the phone's language, any other as it describes itself.
        private func describe(_ error: any Error) -> String {
            (error as? AttendanceDevice.DeviceError).map { format.string($0.text) } ?? "\(error)"
        }
    }
#endif
