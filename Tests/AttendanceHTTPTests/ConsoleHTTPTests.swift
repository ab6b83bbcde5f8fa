import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

/// The console over a real socket: sign-in and its cookie, the headers, CSRF, permissions and a
/// manager's sites, escaping. (The pages in a browser: Tests/browser/console_test.py.)
@Suite struct ConsoleHTTPTests {
    struct Answer {
        var status: Int
        var head: String
        var body: String
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    static func request(
        _ live: LiveServer, _ method: String, _ path: String, cookie: String? = nil, form: [String: String]? = nil,
        headers: [String] = []
    ) async throws -> Answer {
        try await request(
            live, method, path, cookies: cookie.map { "attendance_session=\($0)" }, form: form, headers: headers)
    }

    static func request(
        _ live: LiveServer, _ method: String, _ path: String, cookies: String?, form: [String: String]? = nil,
        headers: [String] = []
    ) async throws -> Answer {
        let body =
            form.map { fields in
                fields.sorted { $0.key < $1.key }.map {
                    "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                }
                .joined(separator: "&")
            } ?? ""
        var lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1", "Connection: close"] + headers
        if let cookies { lines.append("Cookie: \(cookies)") }
        if form != nil {
            lines += ["Content-Type: application/x-www-form-urlencoded", "Content-Length: \(body.utf8.count)"]
        }
        let text = try await RawHTTP.exchange(
            port: live.server.port, bytes: Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8))
        let parts = text.components(separatedBy: "\r\n\r\n")
        let status = Int(parts[0].split(separator: " ").dropFirst().first ?? "") ?? -1
        return Answer(status: status, head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Posts the sign-in form as a browser does: with the token and cookie its page set.
    static func postSignIn(
        _ live: LiveServer, email: String, password: String, headers: [String] = []
    ) async throws -> Answer {
        let page = try await request(live, "GET", "/console/sign-in", cookies: nil)
        let token = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.output.1)
        #expect(
            page.header("Set-Cookie")
                == "attendance_sign_in=\(token); Path=/console/sign-in; Max-Age=1800; HttpOnly; SameSite=Strict")
        return try await request(
            live, "POST", "/console/sign-in", cookies: "attendance_sign_in=\(token)",
            form: ["email": email, "password": password, "csrf": String(token)], headers: headers)
    }

    /// The value of a `Set-Cookie` header's cookie ("name=value; attributes").
    static func cookieValue(_ header: String?) -> String? {
        guard let pair: Substring = header?.split(separator: ";").first else { return nil }
        let parts: [Substring] = pair.split(separator: "=")
        return parts.last.map { String($0) }
    }

    /// An account of `role` signed in: its cookie and CSRF token.
    static func signIn(
        _ live: LiveServer, _ role: Role, sites: [SiteID] = []
    ) async throws -> (cookie: String, csrf: String) {
        _ = try await AccountService(
            repository: live.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .live
        ).add(
            email: "\(role.rawValue)@x.io", role: role, sites: sites, password: "correct horse battery", actor: .server)
        let answer = try await postSignIn(live, email: "\(role.rawValue)@x.io", password: "correct horse battery")
        let cookie = try #require(cookieValue(answer.header("Set-Cookie")))
        let page = try await request(live, "GET", "/console/accounts", cookie: cookie)
        let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.output.1)
        return (cookie, String(csrf))
    }

    @Test func signingInSetsAStrictHttpOnlyCookieAndEveryPageIsLockedDown() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        // Signed out, a page sends to sign-in and back to it after (a link opened from an e-mail).
        #expect(
            try await Self.request(live, "GET", "/console/sessions?site=hq&from=2026-11-02").header("Location")
                == "/console/sign-in?next=%2Fconsole%2Fsessions%3Fsite%3Dhq%26from%3D2026-11-02")
        #expect(
            try await Self.request(live, "GET", "/console/presence").header("Location")
                == "/console/sign-in?next=%2Fconsole%2Fpresence")
        _ = try await AccountService(
            repository: live.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .live
        ).add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        #expect(try await Self.request(live, "GET", "/console").header("Location") == "/console/sign-in")
        let wrong = try await Self.postSignIn(live, email: "o@x.io", password: "nope")
        #expect(wrong.status == 401 && wrong.body.contains("id=\"problem\""))
        // A sign-in posted from elsewhere (no form token and cookie) is refused before the password is read.
        let forged = try await Self.request(
            live, "POST", "/console/sign-in",
            form: ["email": "o@x.io", "password": "correct horse battery"])
        #expect(forged.status == 403 && forged.header("Location") == nil)
        let plain = try await Self.postSignIn(live, email: "o@x.io", password: "correct horse battery")
        let cookie = try #require(plain.header("Set-Cookie"))
        #expect(
            plain.status == 303 && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict")
                && !cookie.contains("Secure"))
        let proxied = try await Self.postSignIn(
            live, email: "o@x.io", password: "correct horse battery",
            headers: ["X-Forwarded-Proto: https"])
        #expect(proxied.header("Set-Cookie")?.hasSuffix("; Secure") == true)
        let value = try #require(Self.cookieValue(cookie))
        #expect(
            try await Self.request(live, "GET", "/console", cookie: value).header("Location") == "/console/presence")
        let page = try await Self.request(live, "GET", "/console/presence", cookie: value)
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(page.status == 200 && policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"))
        #expect(!policy.contains("unsafe-inline") && page.header("X-Content-Type-Options") == "nosniff")
        #expect(
            !page.body.contains("<script>")
                && page.body.contains("<script src=\"/console/static/console.js\" defer></script>"))
        try await live.stop()
    }

    /// After sign-in the browser goes where it was sent from (a console page only, never another
    /// site); `/` leads to the console; an unknown console address is a locked-down HTML page; a
    /// throttled sign-in says when to try again.
    @Test func signInReturnsToTheAskedPageAndTheEdgesAreAnswered() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        _ = try await AccountService(
            repository: live.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .live
        ).add(email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        func signIn(next: String) async throws -> Answer {
            let page = try await Self.request(live, "GET", "/console/sign-in?next=" + next, cookies: nil)
            let token = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.output.1)
            let field = page.body.firstMatch(of: /name="next" value="([^"]*)"/)?.output.1
            var form = ["email": "o@x.io", "password": "correct horse battery", "csrf": String(token)]
            if let field { form["next"] = String(field) }
            return try await Self.request(
                live, "POST", "/console/sign-in", cookies: "attendance_sign_in=\(token)", form: form)
        }
        #expect(
            try await signIn(next: "%2Fconsole%2Fsessions%3Fsite%3Dhq").header("Location")
                == "/console/sessions?site=hq")
        for hostile in ["%2F%2Fevil.example%2Fconsole%2F", "https%3A%2F%2Fevil.example", "%2Fconsole%2F..%5C%5Cevil"] {
            #expect(try await signIn(next: hostile).header("Location") == "/console/presence", "\(hostile)")
        }
        // A cookie and a field that merely agree are not a sign-in form of this server's.
        let forged = try await Self.request(
            live, "POST", "/console/sign-in", cookies: "attendance_sign_in=chosen-by-someone",
            form: ["email": "o@x.io", "password": "correct horse battery", "csrf": "chosen-by-someone"])
        #expect(forged.status == 403 && forged.header("Location") == nil)
        #expect(try await Self.request(live, "GET", "/").header("Location") == "/console")
        let missing = try await Self.request(live, "GET", "/console/no-such-page")
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "text/html; charset=utf-8")
        #expect(missing.header("X-Frame-Options") == "DENY")
        #expect(missing.header("X-Content-Type-Options") == "nosniff")
        #expect(missing.header("Content-Security-Policy") != nil)
        var throttled: Answer?
        for _ in 0..<12 {
            let answer = try await Self.postSignIn(live, email: "o@x.io", password: "wrong wrong wrong")
            if answer.status == 429 {
                throttled = answer
                break
            }
        }
        let refusal = try #require(throttled)
        #expect(Int(refusal.header("Retry-After") ?? "") ?? 0 > 0)
    }

    /// With a second factor required, an hr account without one reaches only Accounts until it
    /// sets it up; a manager is not concerned.
    @Test func aRequiredSecondFactorIsSetUpBeforeAnyOtherPage() async throws {
        let live = try await LiveServer.start(try await Backend.sqlite.makeRepository())
        try await AccountService(repository: live.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .live)
            .requireTOTP(true, actor: .server)
        let (cookie, _) = try await Self.signIn(live, .hr)
        let people = try await Self.request(live, "GET", "/console/people", cookie: cookie)
        #expect(people.status == 303)
        #expect(people.header("Location") == "/console/accounts?done=totpNeeded")
        let accounts = try await Self.request(live, "GET", "/console/accounts?done=totpNeeded", cookie: cookie)
        #expect(accounts.status == 200 && accounts.body.contains("need a second factor"))
    }

    @Test(arguments: Backend.allCases) func aFormWithoutItsTokenOrBeyondTheRoleIsRefused(backend: Backend) async throws
    {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let ada = try await live.enrollEmployee(name: "<script>alert(1)</script> עברית", major: 1)
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: ada.token, key: "k",
                json: LiveServer.checkIn(ada, session: "s-ada")
            ).status == 201)
        let owner = try await Self.signIn(live, .owner)
        // The phone says Bluetooth is off: Exceptions and Devices say so.
        let reported = try await live.send(
            "PUT", "/v1/me/device-state", token: ada.token,
            json: [
                "location": "always", "preciseLocation": true, "bluetooth": "poweredOff",
                "backgroundRefresh": "available",
                "appVersion": "2.4.1", "observedAt": RFC3339Text.format(Date()),
            ])
        #expect(reported.status == 204)
        let exceptions = try await Self.request(live, "GET", "/console/exceptions", cookie: owner.cookie)
        #expect(exceptions.body.contains("<td class=\"why\">Bluetooth is off</td>"))
        let devices = try await Self.request(live, "GET", "/console/devices", cookie: owner.cookie)
        #expect(devices.body.contains("<td>2.4.1</td><td class=\"detection\">Bluetooth is off</td>"))
        let noToken = try await Self.request(
            live, "POST", "/console/sessions/s-ada/void", cookie: owner.cookie, form: ["reason": "x"])
        #expect(noToken.status == 403 && noToken.body.contains("CSRF"))
        let auditor = try await Self.signIn(live, .auditor)
        let page = try await Self.request(live, "GET", "/console/sessions/s-ada", cookie: auditor.cookie)
        #expect(page.status == 200 && !page.body.contains("id=\"correct\"") && !page.body.contains("id=\"void\""))
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt; עברית"
        #expect(page.body.contains(escaped) && !page.body.contains("<script>alert"))
        let forged = try await Self.request(
            live, "POST", "/console/sessions/s-ada/void", cookie: auditor.cookie,
            form: ["reason": "x", "csrf": auditor.csrf])
        #expect(forged.status == 403 && forged.body.contains("correctSessions"))
        let voided = try await Self.request(
            live, "POST", "/console/sessions/s-ada/void", cookie: owner.cookie,
            form: ["reason": "test", "csrf": owner.csrf])
        #expect(voided.status == 303)
        // A site's zone changed through its form; a bad zone is named.
        let site: [String: String] = [
            "name": "Site 1", "timeZone": "Asia/Tokyo", "beaconUUID": "FDA50693-0000-0000-0000-290995101092",
            "major": "1", "csrf": owner.csrf,
        ]
        let saved = try await Self.request(
            live, "POST", "/console/sites/\(ada.siteId)", cookie: owner.cookie, form: site)
        #expect(saved.status == 303 && saved.header("Location") == "/console/sites?done=saved")
        #expect(try await live.send("GET", "/v1/admin/sites/\(ada.siteId)").json["timeZone"] as? String == "Asia/Tokyo")
        var badZone = site
        badZone["timeZone"] = "Mars/Olympus"
        let refused = try await Self.request(
            live, "POST", "/console/sites/\(ada.siteId)", cookie: owner.cookie, form: badZone)
        #expect(refused.status == 422 && refused.body.contains("Mars/Olympus"))
        let history =
            try await live.send("GET", "/v1/admin/sessions/s-ada/history").json["entries"] as? [[String: Any]] ?? []
        #expect(history.last?["kind"] as? String == "session.voided")
        #expect((history.last?["actor"] as? String)?.hasPrefix("account:acc-") == true)
        try await live.stop()
    }

    @Test(arguments: Backend.allCases) func aManagerSeesOnlyTheirSitesInTheConsole(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let (ada, bob) = try await live.adaAndBobOnTwoSites()
        let manager = try await Self.signIn(live, .manager, sites: [SiteID(ada.siteId)])
        let presence = try await Self.request(live, "GET", "/console/presence", cookie: manager.cookie)
        #expect(presence.body.contains("data-session=\"s-ada\"") && !presence.body.contains("s-bob"))
        #expect(!presence.body.contains("nav-audit") && !presence.body.contains("nav-timesheets"))
        #expect(try await Self.request(live, "GET", "/console/sessions/s-bob", cookie: manager.cookie).status == 403)
        #expect(
            try await Self.request(live, "GET", "/console/sessions?site=\(bob.siteId)", cookie: manager.cookie).status
                == 403)
        let sessions = try await Self.request(live, "GET", "/console/sessions", cookie: manager.cookie)
        #expect(sessions.body.contains("s-ada") && !sessions.body.contains("s-bob"))
        #expect(try await Self.request(live, "GET", "/console/audit", cookie: manager.cookie).status == 403)
        try await live.stop()
    }
}
