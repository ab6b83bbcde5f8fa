import ArgumentParser
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation

/// `attendance accounts add|list`: console accounts from the server's shell (the first owner, a
/// lost owner password, scripted set-up). Each change is an audit row, by `server`.
struct Accounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add or list console accounts (owner, hr, manager, auditor). See docs/CONSOLE.md.",
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an account. Without --password-stdin a password is made and printed once.")

        @OptionGroup var options: DatabaseOptions

        @Option(help: "The account's e-mail address (its sign-in name).")
        var email: String

        @Option(help: "owner, hr, manager or auditor.")
        var role: String

        @Option(help: "A site id a manager sees (repeat for several; managers need at least one).")
        var site: [String] = []

        @Flag(help: "Read the password from the first line of standard input (12 to 72 bytes).")
        var passwordStdin = false

        func run() async throws {
            let password = passwordStdin ? readLine(strippingNewline: true) ?? "" : nil
            let repository = try await options.open()
            defer { repository.shutdown() }
            do {
                let created = try await AccountService(
                    repository: repository, codes: TOTPCodes(), environment: .live
                ).add(
                    email: email, role: try AccountRules.role(role), sites: site.map { SiteID($0) }, password: password,
                    actor: .server)
                print("Account \(created.account.id) (\(created.account.email), \(created.account.role.rawValue))")
                if let generated = created.generatedPassword { print("Password (shown once): \(generated)") }
            } catch let problem as DomainError {
                throw CommandFailure(problem.detail)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts: id, e-mail, role, sites, state.")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let repository = try await options.open()
            defer { repository.shutdown() }
            for account in try await repository.accounts() {
                let sites = account.sites.isEmpty ? "all sites" : account.sites.map(\.rawValue).joined(separator: ",")
                let state = account.isActive ? "active" : "deactivated"
                print("\(account.id)\t\(account.email)\t\(account.role.rawValue)\t\(sites)\t\(state)")
            }
        }
    }
}
