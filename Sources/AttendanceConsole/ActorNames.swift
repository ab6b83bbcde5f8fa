import AttendanceRules
import AttendanceServer

/// Who a ledger row's actor is, as a person reads it: an account's e-mail, an employee's phone.
struct ActorNames: Sendable {
    private let names: [String: String]
    /// What an audit row's target id names: a person, a site, an account, a phone.
    private let targets: [String: String]

    /// The names that are sentences (a phone, the admin token) are in `words`' language.
    init(services: ConsoleServices, words: Words) async throws {
        var names: [String: String] = [:]
        var targets: [String: String] = [:]
        for account in try await services.repository.accounts() {
            names[LedgerActor.account(account.id).rawValue] = account.email
            targets[account.id.rawValue] = account.email
        }
        let employees = Dictionary(
            try await services.repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        for (id, name) in employees { targets[id.rawValue] = name }
        for site in try await services.repository.sites() { targets[site.id.rawValue] = site.name }
        for device in try await services.repository.devices(userId: nil) {
            let owner = employees[device.userId] ?? device.userId.rawValue
            names[LedgerActor.device(device.id).rawValue] = words.t("%@'s phone", owner)
            targets[device.id.rawValue] = words.t("%@'s phone", owner)
        }
        names[LedgerActor.adminToken.rawValue] = words.t("the admin token")
        self.names = names
        self.targets = targets
    }

    /// The readable name, the raw actor after it when they differ (`ada@x.io (account:acc-…)`).
    func callAsFunction(_ actor: LedgerActor) -> String {
        names[actor.rawValue].map { "\($0) (\(actor.rawValue))" } ?? actor.rawValue
    }

    /// An audit row's target the same way: `Ada Lovelace (user-…)`; a target that names no one
    /// (a session key, a pay period, a setting) as it is.
    func target(_ raw: String) -> String {
        targets[raw].map { "\($0) (\(raw))" } ?? raw
    }
}
