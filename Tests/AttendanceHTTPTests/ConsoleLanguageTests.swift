import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// The console's language over a real socket: the browser's `Accept-Language` when signed out,
/// the account's choice once made (kept with the account), and a choice it doesn't have refused
/// by name.
@Suite struct ConsoleLanguageTests {
    typealias HTTP = ConsoleHTTPTests

    @Test func theSignInPageSpeaksTheBrowsersLanguage() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        let german = try await HTTP.request(
            live, "GET", "/console/sign-in", cookies: nil, headers: ["Accept-Language: de-CH, en;q=0.5"])
        #expect(german.body.contains("<html lang=\"de\">"))
        #expect(german.body.contains("<button id=\"sign-in-button\" type=\"submit\">Anmelden</button>"))
        let english = try await HTTP.request(
            live, "GET", "/console/sign-in", cookies: nil, headers: ["Accept-Language: fr, en-GB;q=0.8"])
        #expect(english.body.contains("<html lang=\"en\">") && english.body.contains(">Sign in</button>"))
        let missing = try await HTTP.request(
            live, "GET", "/console/nowhere", cookies: nil, headers: ["Accept-Language: de"])
        #expect(missing.status == 404 && missing.body.contains("die Konsole hat keine Seite unter /console/nowhere"))
        try await live.stop()
    }

    @Test func theAccountsChoiceIsKeptAndAnUnknownOneRefused() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        let (cookie, csrf) = try await HTTP.signIn(live, .hr)
        let chosen = try await HTTP.request(
            live, "POST", "/console/language", cookie: cookie, form: ["csrf": csrf, "language": "de"],
            headers: ["Referer: http://127.0.0.1/console/people?q=x"])
        #expect(chosen.status == 303 && chosen.header("Location") == "/console/people")
        // The account's choice wins over the browser's.
        let page = try await HTTP.request(
            live, "GET", "/console/people", cookie: cookie, headers: ["Accept-Language: en"])
        #expect(page.body.contains("<html lang=\"de\">") && page.body.contains(">Jetzt vor Ort</a>"))
        let stored = try await live.repository.account(email: "hr@x.io")
        #expect(stored?.language == "de")
        let refused = try await HTTP.request(
            live, "POST", "/console/language", cookie: cookie, form: ["csrf": csrf, "language": "fr"])
        #expect(refused.status == 400 && refused.body.contains("fr"))
        // Empty: the browser's language again.
        _ = try await HTTP.request(
            live, "POST", "/console/language", cookie: cookie, form: ["csrf": csrf, "language": ""])
        #expect(try await live.repository.account(email: "hr@x.io")?.language == nil)
        // Without the form's CSRF token nothing changes.
        let forged = try await HTTP.request(
            live, "POST", "/console/language", cookie: cookie, form: ["language": "de"])
        #expect(forged.status == 403)
        #expect(try await live.repository.account(email: "hr@x.io")?.language == nil)
        try await live.stop()
    }
}
