import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// `/console/sign-in` and `/console/sign-out`. The sign-in form carries a token of its own, also
/// set as a short-lived cookie (double submit): another site can't sign a browser in to an account
/// of its choosing (login CSRF).
extension Console {
    func registerSignIn(on console: RouterGroup<AttendanceRequestContext>) {
        console.get("sign-in") { request, _ in
            record("console.signIn", nil)
            return try await signInForm(
                words(request), email: "", problem: nil, status: 200, secure: ConsoleSecurity.isHTTPS(request),
                next: Self.returnPath(FormData.query(of: request)["next"]))
        }
        console.post("sign-in") { request, context in
            record("console.signIn", nil)
            let form = try await FormData.body(of: request)
            let email = form["email"] ?? ""
            let secure = ConsoleSecurity.isHTTPS(request)
            let next = Self.returnPath(form["next"])
            let key = try await signInKey.key(services, candidate: environment.newToken())
            guard
                SignInFormKey.verifies(
                    field: form["csrf"], cookie: request.cookies[ConsoleSecurity.signInCookieName]?.value, key: key)
            else {
                let words = self.words(request)
                return try await signInForm(
                    words, email: email,
                    problem: words.t("the sign-in form's token is missing or expired; sign in again on this page"),
                    status: 403, secure: secure, next: next)
            }
            do {
                let signedIn = try await services.signIn.signIn(
                    email: email, password: form.raw("password") ?? "",
                    code: form["code"], address: context.peerAddress)
                let cookie = ConsoleSecurity.sessionCookie(
                    signedIn.cookieToken, maxAge: Int(services.signIn.sessionLifetime), secure: secure)
                return Self.redirect(next ?? "/console/presence", cookie: cookie)
            } catch let error as DomainError {
                let words = self.words(request)
                var response = try await signInForm(
                    words, email: email, problem: words.known(error.detail), status: Problem.status(of: error.kind),
                    secure: secure, next: next)
                if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
                return response
            }
        }
        console.post(
            "sign-out",
            use: signedIn("signOut") { request, _, viewer, form in
                try await services.signIn.signOut(cookieToken: viewer.cookieToken, accountId: viewer.account.id)
                hub.disconnect(accountId: viewer.account.id)  // its other pages' streams reconnect if still signed in
                let cleared = ConsoleSecurity.clearedCookie(secure: ConsoleSecurity.isHTTPS(request))
                return Self.redirect("/console/sign-in", cookie: cleared)
            })
    }

    /// Where to go after signing in: a console page's path and query only (never another site, a
    /// scheme or `//host`), else nil (On site now).
    static func returnPath(_ text: String?) -> String? {
        guard let text, text.hasPrefix("/console/"), !text.hasPrefix("/console/sign-"), text.count <= 2_000,
            !text.contains("\\"), !text.contains("//"),
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        return text
    }

    /// The form with a new token, set as its cookie too.
    private func signInForm(
        _ words: Words, email: String, problem: String?, status: Int, secure: Bool, next: String?
    ) async throws -> Response {
        let token = SignInFormKey.token(
            random: environment.newToken(), key: try await signInKey.key(services, candidate: environment.newToken()))
        var data: [String: Any] = ["title": words.t("Sign in"), "email": email, "csrf": token, "next": next ?? ""]
        if let problem { data["problem"] = problem }
        var response = Self.html(renderer.render("sign-in", data, in: words.language), status: status)
        response.headers[.setCookie] = ConsoleSecurity.signInCookie(token, secure: secure)
        return response
    }
}
