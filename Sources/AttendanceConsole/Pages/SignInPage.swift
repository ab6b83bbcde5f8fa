import AttendanceServer
import Foundation
import Hummingbird

/// `/console/sign-in` and `/console/sign-out`.
extension Console {
    func registerSignIn(on console: RouterGroup<AttendanceRequestContext>) {
        console.get("sign-in") { request, _ in
            record("console.signIn", nil)
            return signInForm(email: "", problem: nil, status: 200)
        }
        console.post("sign-in") { request, context in
            record("console.signIn", nil)
            let form = try await FormData.body(of: request)
            let email = form["email"] ?? ""
            do {
                let signedIn = try await services.signIn.signIn(
                    email: email, password: form.items.first { $0.name == "password" }?.value ?? "", code: form["code"],
                    address: context.peerAddress)
                let cookie = ConsoleSecurity.sessionCookie(
                    signedIn.cookieToken, maxAge: Int(services.signIn.sessionLifetime), secure: ConsoleSecurity.isHTTPS(request))
                return Self.redirect("/console/presence", cookie: cookie)
            } catch let problem as Problem {
                return signInForm(email: email, problem: problem.detail, status: problem.status)
            }
        }
        console.post("sign-out", use: signedIn("signOut") { request, _, viewer in
            try await services.signIn.signOut(cookieToken: viewer.cookieToken, accountId: viewer.account.id)
            return Self.redirect("/console/sign-in", cookie: ConsoleSecurity.clearedCookie(secure: ConsoleSecurity.isHTTPS(request)))
        })
    }

    private func signInForm(email: String, problem: String?, status: Int) -> Response {
        var data: [String: Any] = ["title": "Sign in", "email": email]
        if let problem { data["problem"] = problem }
        return Self.html(renderer.render("sign-in", data), status: status)
    }
}
