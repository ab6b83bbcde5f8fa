import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import HummingbirdBcrypt

/// What `AccountService` and `SignInService` read and write: the repository protocols they need, no more.
public typealias AccountServiceStorage = AttendanceRepository & AccountRepository & LedgerRepository & AuthRepository

/// Accounts: the owner made at first start, adding, changing and deactivating accounts, passwords
/// and TOTP second factors. Every change is an audit row.
public struct AccountService: Sendable {
    public let repository: any AccountServiceStorage
    /// bcrypt's log2 rounds: 12 in production (about a quarter second on one core), less in tests.
    public let bcryptCost: UInt8
    /// The second factor's codes.
    public let codes: any OneTimeCodes
    private let environment: ServerEnvironment

    public init(
        repository: any AccountServiceStorage, bcryptCost: UInt8 = 12, codes: any OneTimeCodes,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.bcryptCost = bcryptCost
        self.codes = codes
        self.environment = environment
    }

    /// What a new account's creator is told once.
    public struct Created: Sendable {
        public var account: AccountRecord
        /// Set when the server chose the password.
        public var generatedPassword: String?
    }

    /// The owner of a database with no account, with a new password (printed once); nil when an
    /// account exists.
    public func bootstrapOwner(email: String) async throws -> Created? {
        guard try await repository.accountCount() == 0 else { return nil }
        return try await add(email: email, role: .owner, sites: [], password: nil, actor: .server)
    }

    public func add(
        email: String, role: Role, sites: [SiteID], password: String?, actor: LedgerActor
    ) async throws
        -> Created
    {
        let email = try AccountRules.email(email)
        if let password { try CommonPasswords.strength.check(password, email: email) }
        try AccountRules.sites(sites, for: role)
        try await requireExisting(sites)
        let chosen = password ?? environment.newPassword()
        let account = AccountRecord(
            id: environment.newId("acc-", length: 12, lowercased: false), email: email, role: role, sites: sites,
            passwordHash: await Self.hash(chosen, cost: bcryptCost), createdAt: environment.now())
        let audit = LedgerEvent.admin(
            .accountCreated, target: account.id,
            changes: [
                "email": LedgerChange(before: nil, after: email),
                "role": LedgerChange(before: nil, after: role.rawValue),
                "sites": LedgerChange(before: nil, after: AccountRecord.text(sites)),
            ],
            actor: actor, now: environment.now())
        do {
            try await repository.createAccount(account, audit: audit)
        } catch let error as RepositoryError where error.kind == .conflict {
            throw DomainError.field(
                "email", email, expected: "an e-mail address no other account uses", kind: .conflict)
        }
        return Created(account: account, generatedPassword: password == nil ? chosen : nil)
    }

    public func account(id: AccountID) async throws -> AccountRecord {
        guard let account = try await repository.account(id: id) else {
            throw DomainError(.notFound, "Not found", "no account with id '\(id)'")
        }
        return account
    }

    /// Changes the role and sites, or deactivates (which also signs the account out and leaves its
    /// API tokens refused). An account can't change its own role or deactivate itself, so the last
    /// owner can't lock everyone out by accident.
    public func update(
        id: AccountID, role: Role, sites: [SiteID], active: Bool, actor: LedgerActor
    ) async throws
        -> AccountRecord
    {
        var account = try await self.account(id: id)
        if actor == .account(id), role != account.role || !active {
            throw DomainError(
                .unprocessable, "Unprocessable",
                "an account can't change its own role or deactivate itself; ask another owner")
        }
        try AccountRules.sites(sites, for: role)
        try await requireExisting(sites)
        let before = account
        account.role = role
        account.sites = sites
        if !active, account.deactivatedAt == nil { account.deactivatedAt = environment.now() }
        if active { account.deactivatedAt = nil }
        guard account != before else { return account }
        var changes: [String: LedgerChange] = [:]
        if before.role != role { changes["role"] = LedgerChange(before: before.role.rawValue, after: role.rawValue) }
        if before.sites != sites {
            changes["sites"] = LedgerChange(before: AccountRecord.text(before.sites), after: AccountRecord.text(sites))
        }
        if before.isActive != active {
            changes["active"] = LedgerChange(before: String(before.isActive), after: String(active))
        }
        let audit = LedgerEvent.admin(
            .accountUpdated, target: id, changes: changes, actor: actor, now: environment.now())
        _ = try await repository.updateAccount(account, audit: audit)
        if !active || before.role != role { try await repository.deleteConsoleSessions(accountId: id) }
        return account
    }

    /// A new password (the account's own, or set by an owner); signs the account out elsewhere.
    public func setPassword(id: AccountID, password: String, actor: LedgerActor) async throws {
        var account = try await self.account(id: id)
        try CommonPasswords.strength.check(password, email: account.email)
        account.passwordHash = await Self.hash(password, cost: bcryptCost)
        let audit = LedgerEvent.admin(
            .accountUpdated, target: id, changes: ["password": LedgerChange(before: nil, after: "changed")],
            actor: actor,
            now: environment.now())
        _ = try await repository.updateAccount(account, audit: audit)
        try await repository.deleteConsoleSessions(accountId: id)
    }

    /// The console's language an account reads (`en`, `de`, or nil for the browser's): a
    /// preference of the person's own, so it is kept with the account but makes no ledger row.
    public func setLanguage(id: AccountID, _ language: String?, accepted: Set<String>) async throws {
        if let language, !accepted.contains(language) {
            throw DomainError.field(
                "language", language, expected: "one of \(accepted.sorted().joined(separator: ", ")), or empty")
        }
        var account = try await self.account(id: id)
        account.language = language
        _ = try await repository.updateAccount(account, audit: nil)
    }

    /// The owner resets another account's password: a new one, made here and shown once to the
    /// owner, who passes it on; the account is signed out everywhere. Audited as a reset.
    public func resetPassword(id: AccountID, actor: LedgerActor) async throws -> String {
        guard actor != .account(id) else {
            throw DomainError(
                .unprocessable, "Unprocessable", "change your own password with your current one, not a reset")
        }
        var account = try await self.account(id: id)
        let password = environment.newPassword()
        account.passwordHash = await Self.hash(password, cost: bcryptCost)
        let audit = LedgerEvent.admin(
            .accountUpdated, target: id, changes: ["password": LedgerChange(before: nil, after: "reset by the owner")],
            actor: actor, now: environment.now())
        _ = try await repository.updateAccount(account, audit: audit)
        try await repository.deleteConsoleSessions(accountId: id)
        return password
    }

    /// Whether owner and hr accounts must have a second factor.
    public func totpRequired() async throws -> Bool { try await repository.totpRequired() }

    /// The owner requires (or stops requiring) a second factor of owner and hr accounts: one
    /// without it is sent to set it up before any other console page.
    public func requireTOTP(_ required: Bool, actor: LedgerActor) async throws {
        let before = try await repository.totpRequired()
        guard before != required else { return }
        let audit = LedgerEvent.admin(
            .accountPolicyChanged, target: "totpRequired",
            changes: ["totpRequired": LedgerChange(before: String(before), after: String(required))], actor: actor,
            now: environment.now())
        try await repository.setTOTPRequired(required, audit: audit)
    }

    /// Whether `account` must set up a second factor before using the console.
    public func needsTOTP(_ account: AccountRecord) async throws -> Bool {
        guard account.totpSecret == nil, account.role == .owner || account.role == .hr else { return false }
        return try await repository.totpRequired()
    }

    /// Turns an account's second factor off (a lost phone): its next sign-in asks for the password
    /// only, and it can set up a new authenticator. Signs the account out everywhere. An owner or
    /// hr account can't turn its own off while the owner requires it.
    public func resetTOTP(id: AccountID, actor: LedgerActor) async throws {
        var account = try await self.account(id: id)
        if actor == .account(id), account.role == .owner || account.role == .hr, try await repository.totpRequired() {
            throw DomainError(
                .conflict, "Second factor required",
                "owner and hr accounts must keep a second factor; ask another owner to reset it after a lost phone")
        }
        guard account.totpSecret != nil else {
            throw DomainError(.conflict, "Not on", "account '\(account.email)' has no second factor to reset")
        }
        account.totpSecret = nil
        let audit = LedgerEvent.admin(
            .accountTOTPReset, target: id, changes: ["totp": LedgerChange(before: "on", after: "off")], actor: actor,
            now: environment.now())
        _ = try await repository.updateAccount(account, audit: audit)
        try await repository.deleteConsoleSessions(accountId: id)
    }

    /// A new TOTP secret for the account to add to an authenticator app; nothing is stored until
    /// `enableTOTP` sees a code made from it.
    public func newTOTPSecret() -> String { String(environment.newToken().prefix(20)) }

    public func authenticatorURL(secret: String, email: String) -> String {
        codes.authenticatorURL(secret: secret, label: email, issuer: "Beacon Attendance")
    }

    /// Turns the second factor on once `code` shows the app holds `secret`.
    public func enableTOTP(id: AccountID, secret: String, code: String, actor: LedgerActor) async throws {
        let number = try AccountRules.totpCode(code)
        guard secret.count == 20,
            secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw DomainError.field("secret", secret, expected: "the 20-character key this page made") }
        guard totpMatches(secret: secret, code: number, at: environment.now()) else {
            throw DomainError.field(
                "code", code, expected: "the code the authenticator app shows now", kind: .unprocessable)
        }
        var account = try await self.account(id: id)
        guard account.totpSecret == nil else {
            throw DomainError(.conflict, "Already on", "this account's second factor is already on")
        }
        account.totpSecret = secret
        let audit = LedgerEvent.admin(
            .accountUpdated, target: id, changes: ["totp": LedgerChange(before: nil, after: "enabled")], actor: actor,
            now: environment.now())
        _ = try await repository.updateAccount(account, audit: audit)
    }

    /// A code of the step before, this step or the next: a phone's clock may be 30 s off.
    func totpMatches(secret: String, code: Int, at now: Date) -> Bool {
        totpStep(secret: secret, code: code, at: now) != nil
    }

    /// The 30-second step whose code `code` is, within one step of `now` either way; nil when none.
    func totpStep(secret: String, code: Int, at now: Date) -> Int64? {
        for offset in [-30.0, 0, 30] where codes.code(secret: secret, at: now.addingTimeInterval(offset)) == code {
            return Int64((now.timeIntervalSince1970 + offset) / 30)
        }
        return nil
    }

    /// bcrypt off the cooperative pool: a hash takes a quarter second of one core at cost 12.
    static func hash(_ password: String, cost: UInt8) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Bcrypt.hash(password, cost: cost)) }
        }
    }

    public static func verify(_ password: String, hash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Bcrypt.verify(password, hash: hash)) }
        }
    }

    private func requireExisting(_ sites: [SiteID]) async throws {
        for site in sites where try await repository.site(id: site) == nil {
            throw DomainError.field(
                "sites", site.rawValue, expected: "the id of an existing site", kind: .unprocessable)
        }
    }
}
