import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import HummingbirdOTP
import Testing

@testable import AttendanceServer

/// Accounts, console sign-in and API tokens on both backends: what is stored, what is refused,
/// and what the audit log records.
@Suite struct AccountServiceTests {
    final class Clock: @unchecked Sendable {
        // @unchecked: the tests set it between calls, never concurrently.
        var now = Date(timeIntervalSince1970: 1_795_338_000)
    }

    struct Setup {
        var repository: any ServerRepository
        var accounts: AccountService
        var signIn: SignInService
        var tokens: APITokenService
        var clock: Clock
    }

    /// A second server on the same database (another replica): its own services, the same clock.
    func replica(of s: Setup) -> SignInService {
        let accounts = AccountService(
            repository: s.repository, bcryptCost: 4, codes: TOTPCodes(), environment: .clock({ s.clock.now }))
        return SignInService(accounts: accounts, environment: .clock({ s.clock.now }))
    }

    func setup(_ backend: Backend) async throws -> Setup {
        let repository = try await backend.makeRepository()
        try await repository.createSite(
            SiteRecord(
                id: "s1", name: "One", timeZone: "UTC", beacon: SiteBeacon(uuid: SiteBeacon.defaultUUID, major: 1)),
            audit: nil)
        let clock = Clock()
        let accounts = AccountService(
            repository: repository, bcryptCost: 4, codes: TOTPCodes(), environment: .clock({ clock.now }))
        return Setup(
            repository: repository, accounts: accounts,
            signIn: SignInService(accounts: accounts, environment: .clock({ clock.now })),
            tokens: APITokenService(repository: repository, environment: .clock({ clock.now })), clock: clock)
    }

    func problem(_ body: () async throws -> Void) async -> DomainError? {
        do {
            try await body()
            return nil
        } catch let problem as DomainError { return problem } catch {
            Issue.record("not a DomainError: \(error)")
            return nil
        }
    }

    func kinds(_ repository: any ServerRepository) async throws -> [String] {
        try await repository.ledgerEvents(LedgerFilter(), before: nil, limit: 100).map(\.kind.rawValue).reversed()
    }

    @Test(arguments: Backend.allCases) func theFirstStartMakesOneOwnerWithAPasswordShownOnce(
        backend: Backend
    ) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let owner = try #require(try await s.accounts.bootstrapOwner(email: "Owner@Example.com"))
        let password = try #require(owner.generatedPassword)
        #expect(owner.account.email == "owner@example.com" && owner.account.role == .owner && password.count == 24)
        #expect(try await s.accounts.bootstrapOwner(email: "other@example.com") == nil)
        let stored = try #require(try await s.repository.account(email: "owner@example.com"))
        #expect(stored.passwordHash.hasPrefix("$2b$04$") && !stored.passwordHash.contains(password))
        #expect(try await kinds(s.repository) == ["account.created"])
    }

    @Test(arguments: Backend.allCases) func anAccountIsRefusedWithTheFieldNamed(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        _ = try await s.accounts.add(
            email: "hr@x.io", role: .hr, sites: [], password: "a-long-password", actor: .server)
        #expect(
            await problem {
                _ = try await s.accounts.add(email: "HR@x.io", role: .hr, sites: [], password: nil, actor: .server)
            }?
            .kind == .conflict)
        #expect(
            await problem {
                _ = try await s.accounts.add(
                    email: "m@x.io", role: .manager, sites: ["nowhere"], password: nil, actor: .server)
            }?
            .detail.contains("'nowhere'") == true)
        #expect(
            await problem {
                _ = try await s.accounts.add(email: "m@x.io", role: .manager, sites: [], password: nil, actor: .server)
            }?
            .detail.contains("'sites'") == true)
    }

    @Test(arguments: Backend.allCases) func signingInGivesASessionThatSigningOutEnds(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let made = try await s.accounts.add(
            email: "m@x.io", role: .manager, sites: ["s1"], password: "correct horse battery", actor: .server)
        let signedIn = try await s.signIn.signIn(
            email: " M@x.io", password: "correct horse battery", code: nil, address: "10.0.0.1")
        #expect(signedIn.account.id == made.account.id && signedIn.session.csrfToken.count == 43)
        let found = try #require(try await s.signIn.session(cookieToken: signedIn.cookieToken))
        #expect(found.account.scope == .only(["s1"]))
        s.clock.now += 12 * 3_600 + 1  // a sign-in lasts 12 h
        #expect(try await s.signIn.session(cookieToken: signedIn.cookieToken) == nil)
        s.clock.now -= 12 * 3_600
        try await s.signIn.signOut(cookieToken: signedIn.cookieToken, accountId: made.account.id)
        #expect(try await s.signIn.session(cookieToken: signedIn.cookieToken) == nil)
        #expect(try await kinds(s.repository) == ["account.created", "account.signedIn", "account.signedOut"])
    }

    @Test(arguments: Backend.allCases) func aWrongPasswordIsAuditedThenThrottled(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        _ = try await s.accounts.add(
            email: "a@x.io", role: .auditor, sites: [], password: "correct horse battery", actor: .server)
        for _ in 0..<5 {
            let refused = await problem {
                _ = try await s.signIn.signIn(email: "a@x.io", password: "wrong", code: nil, address: "10.0.0.1")
            }
            #expect(refused?.kind == .unauthenticated && refused?.detail == "the e-mail, password or code is not right")
        }
        // An unknown e-mail gets the same words, and is not written down.
        #expect(
            await problem {
                _ = try await s.signIn.signIn(email: "nobody@x.io", password: "x", code: nil, address: "10.0.0.3")
            }?
            .detail == "the e-mail, password or code is not right")
        let throttled = await problem {
            _ = try await s.signIn.signIn(
                email: "a@x.io", password: "correct horse battery", code: nil, address: "10.0.0.2")
        }
        #expect(throttled?.kind == .throttled && throttled?.detail.contains("this account; try again in 1 s") == true)
        s.clock.now += 1
        _ = try await s.signIn.signIn(
            email: "a@x.io", password: "correct horse battery", code: nil, address: "10.0.0.2")
        let failures = try await s.repository.ledgerEvents(LedgerFilter(), before: nil, limit: 100)
            .filter { $0.kind == .accountSignInFailed }
        #expect(failures.count == 6)
        #expect(try failures.map { try $0.record().target }.filter { $0 == "unknown account" }.count == 1)
    }

    @Test(arguments: Backend.allCases) func aSecondFactorIsAskedForOnceOn(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let made = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let secret = s.accounts.newTOTPSecret()
        let code = String(format: "%06d", TOTP(secret: secret).compute(date: s.clock.now))
        #expect(
            await problem {
                try await s.accounts.enableTOTP(id: made.account.id, secret: secret, code: "000000", actor: .server)
            }?
            .kind == .unprocessable || code == "000000")
        try await s.accounts.enableTOTP(id: made.account.id, secret: secret, code: code, actor: .server)
        #expect(
            await problem {
                _ = try await s.signIn.signIn(
                    email: "o@x.io", password: "correct horse battery", code: nil, address: "a")
            }?
            .title == "Code required")
        #expect(
            await problem {
                _ = try await s.signIn.signIn(
                    email: "o@x.io", password: "correct horse battery", code: "12", address: "a")
            }?
            .kind == .unauthenticated)
        s.clock.now += 30  // the next step's code is still taken (a phone's clock may be 30 s off)
        _ = try await s.signIn.signIn(email: "o@x.io", password: "correct horse battery", code: code, address: "a")
    }

    /// A code signs in once: the same code again, in its window, is a failed attempt (audited);
    /// the next step's code signs in. Kept in the database, so a second replica refuses it too.
    @Test(arguments: Backend.allCases) func aSecondFactorCodeSignsInOnce(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let made = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let secret = s.accounts.newTOTPSecret()
        func code() -> String { String(format: "%06d", TOTP(secret: secret).compute(date: s.clock.now)) }
        try await s.accounts.enableTOTP(id: made.account.id, secret: secret, code: code(), actor: .server)
        let first = code()
        _ = try await s.signIn.signIn(email: "o@x.io", password: "correct horse battery", code: first, address: "a")
        let again = await problem {
            _ = try await s.signIn.signIn(
                email: "o@x.io", password: "correct horse battery", code: first, address: "a")
        }
        #expect(again?.kind == .unauthenticated)
        // A second server on the same database (another replica) refuses it as well.
        let replica = replica(of: s)
        #expect(
            await problem {
                _ = try await replica.signIn(
                    email: "o@x.io", password: "correct horse battery", code: first, address: "b")
            }?.kind == .unauthenticated)
        s.clock.now += 30
        #expect(code() != first)
        _ = try await replica.signIn(email: "o@x.io", password: "correct horse battery", code: code(), address: "b")
    }

    /// Failed sign-ins are counted in the database: wrong passwords sent in turn to two servers on
    /// one database (replicas) are throttled after the account's five free failures in all, not
    /// five on each; a success on either clears the account's count for both.
    @Test(arguments: Backend.allCases) func twoReplicasThrottleSignInsAsOne(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        _ = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let replica = replica(of: s)
        let servers = [s.signIn, replica]
        for attempt in 0..<5 {
            let refused = await problem {
                _ = try await servers[attempt % 2].signIn(email: "o@x.io", password: "wrong", code: nil, address: "a")
            }
            #expect(refused?.kind == .unauthenticated, "attempt \(attempt + 1) is a wrong password, not throttled")
        }
        for server in servers {
            let throttled = await problem {
                _ = try await server.signIn(email: "o@x.io", password: "correct horse battery", code: nil, address: "b")
            }
            #expect(throttled?.kind == .throttled, "the sixth attempt, on either server, waits")
            #expect(throttled?.retryAfterSeconds == 1)
        }
        // After the wait, the right password on one server clears the account's count on both.
        s.clock.now += 2
        _ = try await replica.signIn(email: "o@x.io", password: "correct horse battery", code: nil, address: "b")
        let afterSuccess = await problem {
            _ = try await s.signIn.signIn(email: "o@x.io", password: "wrong", code: nil, address: "c")
        }
        #expect(afterSuccess?.kind == .unauthenticated, "a fresh allowance after the success")
    }

    /// Ten wrong passwords sent at once, half to each of two servers on one database: the
    /// attempt's count and check are one locked transaction, so exactly the five free failures
    /// are tried and the other five wait.
    @Test(arguments: Backend.allCases) func attemptsSentAtOnceAreCountedOnce(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        _ = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let servers = [s.signIn, replica(of: s)]
        let kinds = await withTaskGroup(of: DomainError.Kind?.self) { group in
            for attempt in 0..<10 {
                group.addTask {
                    do {
                        _ = try await servers[attempt % 2].signIn(
                            email: "o@x.io", password: "wrong", code: nil, address: "a")
                        return nil
                    } catch let error as DomainError { return error.kind } catch { return nil }
                }
            }
            var kinds: [DomainError.Kind?] = []
            for await kind in group { kinds.append(kind) }
            return kinds
        }
        #expect(kinds.filter { $0 == .unauthenticated }.count == 5)
        #expect(kinds.filter { $0 == .throttled }.count == 5)
    }

    /// A second factor turned off (its owner's choice, or an owner's reset after a lost phone):
    /// the next sign-in asks for the password only; audited; turning off what is off is refused.
    @Test(arguments: Backend.allCases) func aSecondFactorTurnedOffAsksForThePasswordOnly(backend: Backend) async throws
    {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let made = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let secret = s.accounts.newTOTPSecret()
        let code = String(format: "%06d", TOTP(secret: secret).compute(date: s.clock.now))
        try await s.accounts.enableTOTP(id: made.account.id, secret: secret, code: code, actor: .server)
        try await s.accounts.resetTOTP(id: made.account.id, actor: .account(made.account.id))
        _ = try await s.signIn.signIn(email: "o@x.io", password: "correct horse battery", code: nil, address: "a")
        #expect(try await kinds(s.repository).contains("account.totpReset"))
        #expect(
            await problem { try await s.accounts.resetTOTP(id: made.account.id, actor: .server) }?.kind == .conflict)
    }

    /// The owner requires a second factor of owner and hr accounts: one without it needs to set
    /// it up, can't turn its own off, and the change is audited.
    @Test(arguments: Backend.allCases) func theOwnerRequiresASecondFactor(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let owner = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let manager = try await s.accounts.add(
            email: "m@x.io", role: .manager, sites: ["s1"], password: "correct horse battery", actor: .server)
        #expect(try await !s.accounts.needsTOTP(owner.account))
        try await s.accounts.requireTOTP(true, actor: .account(owner.account.id))
        #expect(try await s.accounts.totpRequired())
        #expect(try await s.accounts.needsTOTP(owner.account))
        #expect(try await !s.accounts.needsTOTP(manager.account), "a manager's role is not concerned")
        let secret = s.accounts.newTOTPSecret()
        let code = String(format: "%06d", TOTP(secret: secret).compute(date: s.clock.now))
        try await s.accounts.enableTOTP(id: owner.account.id, secret: secret, code: code, actor: .server)
        #expect(try await !s.accounts.needsTOTP(try await s.accounts.account(id: owner.account.id)))
        #expect(
            await problem {
                try await s.accounts.resetTOTP(id: owner.account.id, actor: .account(owner.account.id))
            }?.kind == .conflict)
        #expect(try await kinds(s.repository).contains("accountPolicy.changed"))
    }

    /// Weak passwords are refused wherever a password is set, each with the rule it broke.
    @Test(arguments: Backend.allCases) func aWeakPasswordIsRefusedWithItsReason(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let refused: [(String, String)] = [
            ("aaaaaaaaaaaa", "different characters"), ("123456789012", "run"),
            ("password123456", "most common"), ("Sunshine2024!", "most common"),
            ("annabelle.smith99", "e-mail name"),
        ]
        for (password, why) in refused {
            let error = await problem {
                _ = try await s.accounts.add(
                    email: "annabelle.smith@x.io", role: .hr, sites: [], password: password, actor: .server)
            }
            #expect(error?.detail.contains(why) == true, "\(password): \(error?.detail ?? "accepted")")
            #expect(error?.detail.contains("'password'") == true)
        }
        let made = try await s.accounts.add(
            email: "annabelle.smith@x.io", role: .hr, sites: [], password: "violet lantern orbit", actor: .server)
        let error = await problem {
            try await s.accounts.setPassword(id: made.account.id, password: "qwertyuiop12", actor: .server)
        }
        #expect(error?.detail.contains("most common") == true)
    }

    @Test(arguments: Backend.allCases) func deactivatingSignsOutAndRefusesTheAccountsTokens(
        backend: Backend
    ) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let owner = try await s.accounts.add(email: "o@x.io", role: .owner, sites: [], password: nil, actor: .server)
        let hr = try await s.accounts.add(
            email: "h@x.io", role: .hr, sites: [], password: "correct horse battery", actor: .server)
        let signedIn = try await s.signIn.signIn(
            email: "h@x.io", password: "correct horse battery", code: nil, address: "a")
        let issued = try await s.tokens.issue(
            accountId: hr.account.id, name: "payroll", role: nil, actor: .account(hr.account.id))
        #expect(try await s.tokens.identity(token: issued.token)?.role == .hr)
        #expect(
            await problem {
                _ = try await s.accounts.update(
                    id: owner.account.id, role: .hr, sites: [], active: true, actor: .account(owner.account.id))
            }?.detail.contains("own role") == true)
        // Demoted to auditor: the hr token outranks its account and is revoked at its next use;
        // promoted back, it stays revoked (a new one is needed).
        _ = try await s.accounts.update(
            id: hr.account.id, role: .auditor, sites: [], active: true, actor: .account(owner.account.id))
        #expect(
            await problem { _ = try await s.tokens.identity(token: issued.token) }?.title
                == "Token outranks its account")
        #expect(try await s.signIn.session(cookieToken: signedIn.cookieToken) == nil)  // a role change signs out
        _ = try await s.accounts.update(
            id: hr.account.id, role: .hr, sites: [], active: true, actor: .account(owner.account.id))
        #expect(await problem { _ = try await s.tokens.identity(token: issued.token) }?.title == "Token revoked")
        let revoked = try await s.repository.ledgerEvents(LedgerFilter(), before: nil, limit: 20)
        #expect(revoked.contains { $0.kind == .apiTokenRevoked && $0.actor == .server })
        let reissued = try await s.tokens.issue(
            accountId: hr.account.id, name: "payroll 2", role: nil, actor: .account(hr.account.id))
        #expect(try await s.tokens.identity(token: reissued.token)?.role == .hr)
        let again = try await s.signIn.signIn(
            email: "h@x.io", password: "correct horse battery", code: nil, address: "a")
        _ = try await s.accounts.update(
            id: hr.account.id, role: .hr, sites: [], active: false, actor: .account(owner.account.id))
        #expect(try await s.signIn.session(cookieToken: again.cookieToken) == nil)
        #expect(
            await problem { _ = try await s.tokens.identity(token: reissued.token) }?.title == "Account deactivated")
        #expect(
            await problem {
                _ = try await s.signIn.signIn(
                    email: "h@x.io", password: "correct horse battery", code: nil, address: "b")
            }?
            .kind == .unauthenticated)
    }

    /// A token's sites are the lesser of its role's and its account's: a manager token issued by an
    /// HR account (which sees every site and has none listed) is refused at issue; one issued by a
    /// manager sees the manager's sites.
    @Test(arguments: Backend.allCases) func aSiteScopedTokenSeesNoMoreThanItsAccountsSites(
        backend: Backend
    ) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let hr = try await s.accounts.add(email: "h@x.io", role: .hr, sites: [], password: nil, actor: .server)
        let refused = await problem {
            _ = try await s.tokens.issue(
                accountId: hr.account.id, name: "site", role: .manager, actor: .account(hr.account.id))
        }
        #expect(refused?.detail.contains("'role' is 'manager'") == true, "\(String(describing: refused))")
        let manager = try await s.accounts.add(
            email: "m@x.io", role: .manager, sites: ["s1"], password: nil, actor: .server)
        let issued = try await s.tokens.issue(
            accountId: manager.account.id, name: "site", role: nil, actor: .account(manager.account.id))
        #expect(try await s.tokens.identity(token: issued.token)?.scope == .only(["s1"]))
        let hrToken = try await s.tokens.issue(
            accountId: hr.account.id, name: "auditor", role: .auditor, actor: .account(hr.account.id))
        #expect(try await s.tokens.identity(token: hrToken.token)?.scope == .all)
    }

    @Test(arguments: Backend.allCases) func aTokenCarriesItsAccountsRoleOrLessAndIsRevokedAlone(
        backend: Backend
    ) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let manager = try await s.accounts.add(
            email: "m@x.io", role: .manager, sites: ["s1"], password: nil, actor: .server)
        let actor = LedgerActor.account(manager.account.id)
        #expect(
            await problem {
                _ = try await s.tokens.issue(accountId: manager.account.id, name: "x", role: .auditor, actor: actor)
            }?
            .detail.contains("'role' is 'auditor'") == true)
        let first = try await s.tokens.issue(
            accountId: manager.account.id, name: "door screen", role: nil, actor: actor)
        let second = try await s.tokens.issue(
            accountId: manager.account.id, name: "script", role: .manager, actor: actor)
        let identity = try #require(try await s.tokens.identity(token: first.token))
        #expect(identity.scope == .only(["s1"]) && identity.credential == .apiToken(first.record.id))
        let listed = try await s.repository.apiTokens(accountId: manager.account.id)
        #expect(listed.count == 2 && listed.first { $0.id == first.record.id }?.lastUsedAt == s.clock.now)
        #expect(listed.first { $0.id == second.record.id }?.lastUsedAt == nil)
        #expect(try await s.tokens.identity(token: "not-ours") == nil)
        _ = try await s.tokens.revoke(id: first.record.id, by: manager.account.id, mayRevokeAny: false, actor: actor)
        #expect(await problem { _ = try await s.tokens.identity(token: first.token) }?.title == "Token revoked")
        #expect(try await s.tokens.identity(token: second.token) != nil)
        #expect(
            await problem {
                _ = try await s.tokens.revoke(
                    id: second.record.id, by: "someone-else", mayRevokeAny: false, actor: .server)
            }?
            .kind == .notFound)
    }

    /// A console form that makes a secret is claimed once: a second send gets the first one's
    /// time; a released claim (its action failed) can be sent again; old claims are purged.
    @Test(arguments: Backend.allCases) func aConsoleFormIsClaimedOnce(backend: Backend) async throws {
        let s = try await setup(backend)
        defer { s.repository.shutdown() }
        let made = try await s.accounts.add(
            email: "o@x.io", role: .owner, sites: [], password: "correct horse battery", actor: .server)
        let first = s.clock.now
        #expect(try await s.repository.claimConsoleForm(hash: "f1", accountId: made.account.id, now: first) == nil)
        let again = try await s.repository.claimConsoleForm(
            hash: "f1", accountId: made.account.id, now: first.addingTimeInterval(5))
        #expect(again == first)
        try await s.repository.releaseConsoleForm(hash: "f1")
        #expect(
            try await s.repository.claimConsoleForm(
                hash: "f1", accountId: made.account.id, now: first.addingTimeInterval(9)) == nil)
        #expect(try await s.repository.purgeIdempotency(olderThan: first.addingTimeInterval(10)) == 0, "keys only")
        #expect(
            try await s.repository.claimConsoleForm(
                hash: "f1", accountId: made.account.id, now: first.addingTimeInterval(11)) == nil)
    }
}
