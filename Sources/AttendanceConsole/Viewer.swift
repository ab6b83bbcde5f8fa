import AttendanceModels
import AttendanceRules
import AttendanceServer

/// The signed-in person a console request acts for.
struct Viewer: Sendable {
    var account: AccountRecord
    var session: ConsoleSessionRecord
    var cookieToken: String
    /// The catalogue in the language this viewer reads (`Language.chosen`).
    var words: Words

    var language: Language { words.language }
    func t(_ key: String, _ arguments: String...) -> String { words.catalogue.text(key, words.language, arguments) }
    func tp(_ key: String, count: Int, _ arguments: String...) -> String {
        words.catalogue.plural(key, count: count, words.language, arguments)
    }

    var principal: Principal {
        .staff(
            StaffIdentity(
                accountId: account.id, email: account.email, role: account.role, scope: account.scope,
                credential: .consoleSession))
    }

    var actor: LedgerActor { .account(account.id) }
    var scope: SiteScope { account.scope }

    func may(_ permission: Permission) -> Bool { AccessPolicy.allows(account.role, permission) }

    func require(_ permission: Permission) throws {
        guard may(permission) else {
            throw Problem.forbidden(
                "the \(account.role.rawValue) role can't do this: it needs the '\(permission.rawValue)' permission")
        }
    }

    func requireSite(_ site: SiteID) throws { try SiteScope.require(site, in: scope) }
}
