import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// Accounts (the owner adds, changes and deactivates them), and for every account its own
/// password, second factor and API tokens.
extension Console {
    func registerAccounts(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "accounts",
            use: signedIn("accounts") { request, _, viewer, form in
                let done = form["done"].flatMap { Self.accountNotice($0, viewer) }
                return page(
                    "accounts", title: viewer.t("Accounts"), viewer: viewer, try await accountData(viewer),
                    notice: done)
            })
        console.post(
            "accounts",
            use: signedIn("createAccount", needs: .manageAccounts) { request, _, viewer, form in
                try await accountForm("add-account", viewer: viewer, sent: form) {
                    // The password as typed (not trimmed: sign-in compares it as typed); empty: made here.
                    let password = form.raw("password").flatMap { $0.isEmpty ? nil : $0 }
                    let created = try await services.accounts.add(
                        email: form["email"] ?? "", role: try AccountRules.role(form["role"] ?? ""),
                        sites: form.all("sites").map { SiteID($0) }, password: password, actor: viewer.actor)
                    var data = try await accountData(viewer)
                    if let password = created.generatedPassword {
                        data["secret"] = [
                            "label": viewer.t("Password for %@", Bidi.isolated(created.account.email)),
                            "value": password,
                        ]
                    }
                    return page(
                        "accounts", title: viewer.t("Accounts"), viewer: viewer, data,
                        notice: viewer.t("Account added."))
                }
            })
        console.post(
            "accounts/:id",
            use: signedIn("updateAccount", needs: .manageAccounts) { request, context, viewer, form in
                let id = AccountID(try context.parameters.require("id"))
                return try await formAction(
                    "edit-account", row: id.rawValue, template: "accounts", title: viewer.t("Accounts"),
                    viewer: viewer, sent: form, data: { try await accountData(viewer) }
                ) {
                    _ = try await services.accounts.update(
                        id: id, role: try AccountRules.role(form["role"] ?? ""),
                        sites: form.all("sites").map { SiteID($0) }, active: form["active"] == "yes",
                        actor: viewer.actor)
                    hub.disconnect(accountId: id)  // its live pages reconnect with what it may see now
                    return Self.redirect("/console/accounts?done=saved")
                }
            })
        // The language the account reads the console in; back to the page it was chosen on.
        console.post(
            "language",
            use: signedIn("language") { request, _, viewer, form in
                let language = form["language"].flatMap { $0.isEmpty ? nil : $0 }
                try await services.accounts.setLanguage(
                    id: viewer.account.id, language, accepted: Set(Language.allCases.map(\.rawValue)))
                let back = request.headers[.referer].flatMap { URL(string: $0) }.map { $0.path }
                return Self.redirect(Self.returnPath(back) ?? "/console/presence")
            })
        console.post(
            "password",
            use: signedIn("changePassword") { request, context, viewer, form in
                try await accountForm("change-password", viewer: viewer, sent: form) {
                    try await services.signIn.confirmPassword(
                        form.raw("current") ?? "", of: viewer.account, address: context.peerAddress)
                    try await services.accounts.setPassword(
                        id: viewer.account.id, password: form.raw("password") ?? "", actor: viewer.actor)
                    hub.disconnect(accountId: viewer.account.id)
                    return Self.redirect("/console/sign-in")
                }
            })
        console.post(
            "totp",
            use: signedIn("enableTOTP") { request, context, viewer, form in
                try await accountForm("totp", viewer: viewer, sent: form) {
                    try await services.signIn.confirmPassword(
                        form.raw("current") ?? "", of: viewer.account, address: context.peerAddress)
                    // The secret the page showed, made again from this sign-in: never one the form sends.
                    let secret = Self.pendingTOTPSecret(viewer)
                    try await services.accounts.enableTOTP(
                        id: viewer.account.id, secret: secret, code: form["code"] ?? "", actor: viewer.actor)
                    return Self.redirect("/console/accounts?done=totp")
                }
            })
        console.post(
            "accounts/policy",
            use: signedIn("accountPolicy", needs: .manageAccounts) { _, _, viewer, form in
                try await accountForm("account-policy", viewer: viewer, sent: form) {
                    try await services.accounts.requireTOTP(form["totpRequired"] == "yes", actor: viewer.actor)
                    return Self.redirect("/console/accounts?done=policy")
                }
            })
        console.post(
            "totp/off",
            use: signedIn("disableTOTP") { request, context, viewer, form in
                // Its own: the password again (a session left open must not turn it off), then
                // signed out everywhere like a password change.
                try await accountForm("totp-off", viewer: viewer, sent: form) {
                    try await services.signIn.confirmPassword(
                        form.raw("current") ?? "", of: viewer.account, address: context.peerAddress)
                    try await services.accounts.resetTOTP(id: viewer.account.id, actor: viewer.actor)
                    hub.disconnect(accountId: viewer.account.id)
                    return Self.redirect("/console/sign-in")
                }
            })
        console.post(
            "tokens",
            use: signedIn("issueToken") { request, _, viewer, form in
                try await accountForm("new-token", viewer: viewer, sent: form) {
                    try await once(request, form, viewer: viewer) {
                        let issued = try await services.tokens.issue(
                            accountId: viewer.account.id, name: form["name"] ?? "",
                            role: try form["role"].map(AccountRules.role), actor: viewer.actor)
                        var data = try await accountData(viewer)
                        data["newToken"] = ["name": issued.record.name, "value": issued.token]
                        return page(
                            "accounts", title: viewer.t("Accounts"), viewer: viewer, data,
                            notice: viewer.t("API token issued (shown once)."))
                    }
                }
            })
        console.post(
            "accounts/:id/reset-password",
            use: signedIn("resetPassword", needs: .manageAccounts) { request, context, viewer, form in
                let account = try await services.accounts.account(id: AccountID(try context.parameters.require("id")))
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Reset the password of %@?", Bidi.isolated(account.email)),
                        consequence: viewer.t("A new password is made and shown to you once;") + " "
                            + viewer.t("the account is signed out everywhere until it signs in with the new one."),
                        button: viewer.t("Reset the password"), back: "/console/accounts"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                return try await once(request, form, viewer: viewer) {
                    let password = try await services.accounts.resetPassword(id: account.id, actor: viewer.actor)
                    hub.disconnect(accountId: account.id)
                    var data = try await accountData(viewer)
                    data["secret"] = [
                        "label": viewer.t("New password for %@", Bidi.isolated(account.email)), "value": password,
                    ]
                    return page(
                        "accounts", title: viewer.t("Accounts"), viewer: viewer, data,
                        notice: viewer.t("Password reset."))
                }
            })
        console.post(
            "accounts/:id/reset-totp",
            use: signedIn("resetTOTP", needs: .manageAccounts) { request, context, viewer, form in
                let account = try await services.accounts.account(id: AccountID(try context.parameters.require("id")))
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Turn off the second factor of %@?", Bidi.isolated(account.email)),
                        consequence: viewer.t(
                            "Its next sign-in asks only for the password; it can then set up a new authenticator app."
                        ) + " " + viewer.t("It is signed out everywhere now."),
                        button: viewer.t("Turn it off"), back: "/console/accounts"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                try await services.accounts.resetTOTP(id: account.id, actor: viewer.actor)
                hub.disconnect(accountId: account.id)
                return Self.redirect("/console/accounts?done=totpReset")
            })
        console.post(
            "tokens/:id/revoke",
            use: signedIn("revokeToken") { request, context, viewer, form in
                if let ask = unconfirmed(
                    Confirmation(
                        question: viewer.t("Revoke this API token?"),
                        consequence: viewer.t(
                            "Scripts that use it are refused from their next request; a new token has a new value."),
                        button: viewer.t("Revoke the token"), back: "/console/accounts"),
                    request: request, form: form, viewer: viewer)
                {
                    return ask
                }
                _ = try await services.tokens.revoke(
                    id: APITokenID(try context.parameters.require("id")), by: viewer.account.id,
                    mayRevokeAny: viewer.may(.manageAccounts),
                    actor: viewer.actor)
                return Self.redirect("/console/accounts?done=revoked")
            })
    }

    /// An Accounts form's action: a refusal shows the page again with it (`FormFailure`).
    private func accountForm(
        _ form: String, viewer: Viewer, sent: FormData, _ action: () async throws -> Response
    ) async throws -> Response {
        try await formAction(
            form, template: "accounts", title: viewer.t("Accounts"), viewer: viewer, sent: sent,
            data: { try await accountData(viewer) }, action)
    }

    /// The notice for `?done=…` after an action, in the viewer's language.
    static func accountNotice(_ done: String, _ viewer: Viewer) -> String? {
        switch done {
        case "saved": viewer.t("Account saved.")
        case "revoked": viewer.t("Token revoked.")
        case "totp": viewer.t("Second factor on: sign-ins now ask for its code.")
        case "totpReset": viewer.t("Second factor turned off for that account.")
        case "totpNeeded": viewer.t("Owner and hr accounts need a second factor: set yours up below to continue.")
        case "policy": viewer.t("Saved: what every owner and hr account needs.")
        default: nil
        }
    }

    /// A role as people read it (the stored name stays the form's value).
    static func roleLabel(_ role: Role, _ viewer: Viewer) -> String {
        switch role {
        case .owner: viewer.t("owner")
        case .hr: viewer.t("hr")
        case .manager: viewer.t("manager")
        case .auditor: viewer.t("auditor")
        }
    }

    private func accountData(_ viewer: Viewer) async throws -> [String: Any] {
        let manage = viewer.may(.manageAccounts)
        let allSites = try await services.repository.sites()
        let sites = allSites.filter(\.isActive)
        let accounts = manage ? try await services.repository.accounts() : [viewer.account]
        let emails = Dictionary(accounts.map { ($0.id, $0.email) }, uniquingKeysWith: { first, _ in first })
        let siteNames = Dictionary(allSites.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let accountRows: [[String: Any]] = accounts.map { account in
            [
                "id": account.id.rawValue, "email": account.email, "role": account.role.rawValue,
                "roleLabel": Self.roleLabel(account.role, viewer),
                "sites": account.sites.map { siteNames[$0] ?? $0.rawValue }.joined(separator: ", "),
                "active": account.isActive,
                "totp": account.totpSecret != nil, "mayEdit": manage && account.id != viewer.account.id,
                "roles": Role.allCases.map {
                    ["role": $0.rawValue, "label": Self.roleLabel($0, viewer), "selected": $0 == account.role]
                },
                "siteChoices": sites.map {
                    ["id": $0.id.rawValue, "name": $0.name, "selected": account.sites.contains($0.id)]
                },
            ]
        }
        let tokens = try await services.repository.apiTokens(accountId: manage ? nil : viewer.account.id)
        let tokenRows: [[String: Any]] = tokens.map { token in
            [
                "id": token.id.rawValue, "name": token.name, "account": emails[token.accountId] ?? token.accountId,
                "role": token.role.rawValue, "roleLabel": Self.roleLabel(token.role, viewer),
                "created": LocalTime.text(token.createdAt, zone: "UTC", in: viewer.language),
                "lastUsed": token.lastUsedAt.map { LocalTime.text($0, zone: "UTC", in: viewer.language) }
                    ?? viewer.t("never"),
                "revoked": LocalTime.text(token.revokedAt, zone: "UTC", in: viewer.language),
                "mayRevoke": token.revokedAt == nil,
            ]
        }
        let secret = Self.pendingTOTPSecret(viewer)
        let link = services.accounts.authenticatorURL(secret: secret, email: viewer.account.email)
        let totpOn = viewer.account.totpSecret != nil
        var data: [String: Any] = [
            "accounts": accountRows, "tokens": tokenRows, "noTokens": tokenRows.isEmpty, "mayManage": manage,
            "roles": Role.allCases.map { ["role": $0.rawValue, "label": Self.roleLabel($0, viewer)] },
            // A site-scoped token sees its account's sites: only an account with sites may make one.
            "tokenRoles": Role.allCases.filter {
                AccessPolicy.covers(viewer.account.role, $0) && (!$0.isSiteScoped || !viewer.account.sites.isEmpty)
            }.map {
                ["role": $0.rawValue, "label": Self.roleLabel($0, viewer)]
            },
            "sites": sites.map { ["id": $0.id.rawValue, "name": $0.name] },
            "totpOn": totpOn, "totpRequired": try await services.accounts.totpRequired(), "totpURL": link,
            "totpKey": QRCode.typedKey(link) ?? "",
        ]
        // The link as a QR code to scan while the factor is off (none when it can't be drawn).
        if !totpOn, let qr = QRCode.svg(link, label: viewer.t("QR code of the link below")) { data["totpQR"] = qr }
        return data
    }

    /// The second factor's secret offered to `viewer` while it is off: made by the server from this
    /// sign-in's own token (its CSRF token, known only to the server and this sign-in's pages), so the form
    /// that turns it on carries only the code, and no client can choose the key.
    static func pendingTOTPSecret(_ viewer: Viewer) -> String {
        let mac = HMACSHA256.authenticationCode(
            key: Array(viewer.session.csrfToken.utf8), message: Array("totp-setup|\(viewer.account.id)".utf8))
        return String(Data(mac).base64URLEncoded.prefix(20))
    }
}
