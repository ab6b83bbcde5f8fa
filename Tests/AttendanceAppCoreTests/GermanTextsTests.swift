import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation
import Testing

/// The app's texts in German, from the app's own String Catalog (the file Xcode compiles into the
/// bundle): what an employee whose iPhone is set to German reads on each screen and notification.
@Suite struct GermanTextsTests {
    static let catalogue: StringCatalogue = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("Apps/iOS/Resources/Localizable.xcstrings")
        return try! StringCatalogue(xcstrings: Data(contentsOf: file), languages: ["en", "de"])
    }()
    static let german = DisplayFormat(
        timeZone: TimeZone(identifier: "UTC")!, locale: Locale(identifier: "de_DE"),
        catalogue: catalogue.lookup("de"))

    @Test func theTodayScreenIsInGerman() async throws {
        let fixture = try RuntimeFixture()
        let before = TodayModel(status: try await fixture.status(at: 0), format: Self.german)
        #expect(before.headline == "Nicht eingecheckt")
        #expect(before.workedToday == "Heute gearbeitet: 0 Min.")
        #expect(before.lastSync == "Noch nicht synchronisiert")
        #expect(before.pending == "Alle Ereignisse gesendet")

        fixture.uploader.outcome.value = DeliveryOutcome.retry(
            reason: "offline", transport: true, retryAfterSeconds: nil)
        try await fixture.at(0, .manualCheckIn(RuntimeFixture.hq, reason: "Beacon nicht erkannt", at: nil))
        let status = try await fixture.status(at: 2 * 3600 + 5 * 60)
        let today = TodayModel(status: status, format: Self.german)
        #expect(today.headline == "Eingecheckt bei HQ")
        #expect(today.presences.map(\.state) == ["Eingecheckt seit 09:00"])
        #expect(today.workedToday == "Heute gearbeitet: 2 Std. 05 Min.")
        #expect(today.pending == "1 Ereignis wartet auf das Senden")
    }

    @Test func aFormsErrorsNameTheFieldInGerman() {
        guard case .failure(let errors) = EnrollmentForm(serverURL: "https://", code: "K7P2Q-9XMW0").validated() else {
            Issue.record("accepted")
            return
        }
        let expected =
            "Registrierungscode „K7P2Q-9XMW0“: erwartet: 10 Buchstaben und Ziffern wie K7P2Q-9XMWD "
            + "(ohne 0, O, 1, I oder L)."
        let lines = errors.text(Self.german).components(separatedBy: "\n")
        #expect(lines.dropLast().last == expected, "\(lines.map { Array($0.unicodeScalars) })")
        #expect(
            lines.last
                == "Name dieses Telefons „“: erwartet: ein Name mit 1 bis 60 Zeichen, an dem die Personalabteilung "
                + "dieses Telefon erkennt, etwa Annas Dienst-iPhone.")
    }

    @Test func onboardingNamesWhatIsMissingInGerman() {
        let guide = PermissionGuide(
            PermissionSnapshot(
                engine: Permissions(location: .denied, bluetooth: .poweredOff), notifications: .authorized,
                motion: .authorized))
        #expect(
            Self.german.string(guide.headline) == "Die automatische Anwesenheit braucht: Standort: Immer, Bluetooth.")
        #expect(guide.steps.map { Self.german.string($0.title) }.first == "Standort: Immer")
    }

    @Test func theEnginesNotificationsAreInGerman() throws {
        var engine = Engine(configuration: Configuration())
        let actions = engine.handle(
            .permissionsChanged(Permissions(location: .denied, bluetooth: .poweredOff)), now: RuntimeFixture.t0)
        let prompt = try #require(
            actions.compactMap { action -> LocalNotification? in
                if case .notify(let notification) = action { return notification }
                return nil
            }.first)
        #expect(Self.german.string(prompt.title) == "Manuell einchecken")
        #expect(
            Self.german.string(prompt.body)
                == "Das automatische Einchecken funktioniert gerade nicht: der Standortzugriff ist abgelehnt; "
                + "Bluetooth ist aus. Öffnen Sie die App, um einzuchecken, oder ändern Sie das in den Einstellungen.")
    }

    /// English is the keys themselves: a screen in English reads the same with or without the
    /// catalogue (which is what the other tests, and a bundle without a German table, rely on).
    @Test func everyEnglishValueIsItsKey() {
        let english = Self.catalogue.lookup("en")
        let differing = Self.catalogue.keys("en").filter { english($0) != $0 }
        #expect(differing.isEmpty, "en values that are not their key: \(differing.sorted())")
    }

    /// The Diagnostics screen's line on the server's record: no receipts yet, receipts checked, and a
    /// problem the phone found (in red), in German.
    @Test func theRecordsLineInDiagnosticsIsInGerman() {
        func line(_ ledger: LedgerReceiptState?) -> (String, Bool) {
            let model = DiagnosticsModel(status: DeviceStatus(now: Date(), ledger: ledger), format: Self.german)
            return (model.ledger, model.ledgerProblem)
        }
        #expect(line(nil) == ("Noch keine Belege vom Server", false))
        var state = LedgerReceiptState(
            logKey: "k",
            checkpoint: "example.com/ledger\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n— x AAAAAAAA\n",
            receipts: 3, lastRowId: 7, problem: nil, problemAt: nil, problemReported: false)
        #expect(line(state) == ("3 Belege gegen den Prüfpunkt der Aufzeichnung mit 3 Zeilen geprüft", false))
        state.problem = "the log went back from 3 to 2 rows (a rollback)"
        state.problemAt = Date(timeIntervalSince1970: 1_795_338_000)
        state.problemReported = true
        let (text, problem) = line(state)
        #expect(problem)
        #expect(
            text.hasPrefix("Die Aufzeichnung des Servers passt nicht zu den Belegen dieses Telefons: the log went back")
        )
        #expect(text.hasSuffix("; dem Server gemeldet)"), "\(text)")
    }
}
