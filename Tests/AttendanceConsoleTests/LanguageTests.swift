import AttendanceRules
import Foundation
import Testing

@testable import AttendanceConsole

/// The console's two languages: which one a request gets, how the catalogue fills its texts, and
/// that every template reads in both.
@Suite struct LanguageTests {
    @Test func theAccountsChoiceComesFirstThenTheBrowsers() {
        #expect(Language.chosen(account: "de", acceptLanguage: "en-US,en;q=0.9") == .german)
        #expect(Language.chosen(account: nil, acceptLanguage: "de-AT,de;q=0.9,en;q=0.5") == .german)
        #expect(Language.chosen(account: nil, acceptLanguage: nil) == .english)
        // A stored choice the console no longer has falls back to the browser's.
        #expect(Language.chosen(account: "fr", acceptLanguage: "de") == .german)
    }

    @Test func theBrowsersRangesAreTakenByWeight() {
        #expect(Language.negotiate("fr-CH, fr;q=0.9, de;q=0.7, en;q=0.8") == .english)
        #expect(Language.negotiate("fr, de;q=0.5") == .german)
        #expect(Language.negotiate("en;q=0, de") == .german)
        #expect(Language.negotiate("DE-de") == .german)
        #expect(Language.negotiate("*") == .english)
        #expect(Language.negotiate("fr, es") == nil)
        #expect(Language.negotiate("de;q=banana, en;q=0.1") == .english)
        #expect(Language.negotiate("") == nil)
    }

    @Test func daysAndNumbersAreWrittenAsEachLanguageWritesThem() {
        let day = LocalDate("2026-03-09")!
        #expect(Language.english.date(day) == "2026-03-09")
        #expect(Language.german.date(day) == "09.03.2026")
        #expect(Language.english.number(1_234_567) == "1,234,567")
        #expect(Language.german.number(-12_345) == "-12.345")
        #expect(Language.german.number(999) == "999")
        #expect(Language.german.number(7.5, fractionDigits: 1) == "7,5")
        #expect(Language.english.number(7.5, fractionDigits: 2) == "7.50")
        let instant = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22 09:00 UTC
        #expect(LocalTime.text(instant, zone: "Europe/Berlin", in: .german) == "22.11.2026 10:00 Europe/Berlin")
        #expect(LocalTime.text(instant, zone: "Europe/Berlin", in: .english) == "2026-11-22 10:00 Europe/Berlin")
    }

    @Test func argumentsGoWhereTheTextSaysAndPluralsByCount() throws {
        #expect(Catalogue.format("%@ of %@", ["3", "7"]) == "3 of 7")
        #expect(Catalogue.format("%2$@ von %1$@", ["3", "7"]) == "7 von 3")
        #expect(Catalogue.format("%lld%% done", ["40"]) == "40% done")
        #expect(Catalogue.format("missing %@", []) == "missing ")
        let catalogue = try Catalogue(
            xcstrings: Data(
                """
                {"sourceLanguage":"en","version":"1.0","strings":{
                  "%lld people":{"localizations":{
                    "en":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld person"}},
                      "other":{"stringUnit":{"state":"translated","value":"%lld people"}}}}},
                    "de":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld Person"}},
                      "other":{"stringUnit":{"state":"translated","value":"%lld Personen"}}}}}}},
                  "Save":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"Save"}},
                    "de":{"stringUnit":{"state":"translated","value":"Speichern"}}}}}}
                """.utf8))
        #expect(catalogue.plural("%lld people", count: 1, .german, []) == "1 Person")
        #expect(catalogue.plural("%lld people", count: 2_000, .german, []) == "2.000 Personen")
        #expect(catalogue.plural("%lld people", count: 1, .english, []) == "1 person")
        #expect(catalogue.text("Save", .german, []) == "Speichern")
        // A key the catalogue lacks reads as its English text.
        #expect(catalogue.text("Not there: %@", .german, ["x"]) == "Not there: x")
    }

    @Test func theCoresRefusalOfAFieldReadsInGermanWithWhatWasSentAsItWas() throws {
        let catalogue = try Catalogue.bundled()
        let german = Words(catalogue: catalogue, language: .german)
        let english = Words(catalogue: catalogue, language: .english)
        let zone = DomainError.field(
            "timeZone", "Mars/Base", expected: "an IANA time zone such as Europe/Berlin or America/New_York")
        #expect(
            german.refusal(zone.detail)
                == "„timeZone“ ist „Mars/Base“; erwartet: eine IANA-Zeitzone wie Europe/Berlin oder America/New_York"
        )
        #expect(english.refusal(zone.detail) == zone.detail, "English reads as the core wrote it")
        let missing = DomainError.field("date", nil, expected: "a day YYYY-MM-DD")
        #expect(german.refusal(missing.detail) == "„date“ fehlt; erwartet: ein Tag JJJJ-MM-TT")
        let choice = DomainError.field("zone", "Mars", expected: "one of Europe/Berlin, UTC")
        #expect(german.refusal(choice.detail) == "„zone“ ist „Mars“; erwartet: eines von: Europe/Berlin, UTC")
        // What the catalogue lacks stays English inside the German sentence; a value with a quote
        // and "; expected" of its own is still the value.
        let odd = DomainError.field("name", "x'; expected y", expected: "something new")
        #expect(german.refusal(odd.detail) == "„name“ ist „x'; expected y“; erwartet: something new")
    }

    @Test func aKeyWithoutGermanIsRefusedByName() {
        let data = Data(
            #"{"sourceLanguage":"en","strings":{"Save":{"localizations":{"en":{"stringUnit":{"value":"Save"}}}}}}"#
                .utf8)
        #expect(throws: CatalogueError.self) { try Catalogue(xcstrings: data) }
    }

    @Test func templateTextsAreEscapedAndKeepTheirVariables() throws {
        let catalogue = try Catalogue.bundled()
        let html = try TemplateText.translated(
            "<p>[[Status {{status}}.]]</p><a>[[Back to the console]]</a>", .german, catalogue)
        #expect(html == "<p>Status {{status}}.</p><a>Zurück zur Konsole</a>")
        #expect(TemplateText.escaped(#"Tom's "R&D" <team>"#) == "Tom&#39;s &quot;R&amp;D&quot; &lt;team&gt;")
        #expect(throws: CatalogueError.self) { try TemplateText.translated("[[No such text]]", .german, catalogue) }
    }

    /// Every template, in both languages, with every marker found in the bundled catalogue, and
    /// no marker left for Mustache to see.
    @Test func everyTemplateReadsInBothLanguages() throws {
        let catalogue = try Catalogue.bundled()
        let renderer = try Renderer()
        for language in Language.allCases {
            let html = renderer.render("error", ["title": "T", "detail": "D", "status": 404], in: language)
            #expect(html.contains("<html lang=\"\(language.rawValue)\">"))
            #expect(!html.contains("[["))
        }
        #expect(catalogue.keys.count > 30)
    }
}
