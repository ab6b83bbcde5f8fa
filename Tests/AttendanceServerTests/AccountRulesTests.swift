import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// What an account's fields must be, and how sure a presence row is: pure rules.
@Suite struct AccountRulesTests {
    func detail(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let problem as DomainError { return problem.detail } catch { return "\(error)" }
    }

    @Test func anEmailIsTrimmedAndLowercasedAndABadOneIsNamed() throws {
        #expect(try AccountRules.email("  Ada@Example.COM ") == "ada@example.com")
        for bad in ["ada", "ada@", "@x.io", "ada@localhost", "a b@x.io", "ada@x.io\n", "a@@x.io"] {
            #expect(detail { _ = try AccountRules.email(bad) }?.contains("'email'") == true, "\(bad)")
        }
    }

    @Test func aPasswordIs12To72Bytes() {
        #expect(detail { try AccountRules.password(String(repeating: "a", count: 12)) } == nil)
        #expect(detail { try AccountRules.password(String(repeating: "a", count: 11)) }?.contains("11 bytes") == true)
        // 72 bytes is bcrypt's limit: 25 three-byte characters are 75 bytes and refused.
        #expect(detail { try AccountRules.password(String(repeating: "€", count: 25)) }?.contains("75 bytes") == true)
    }

    @Test func aManagerNeedsSitesAndTheOtherRolesTakeNone() {
        #expect(detail { try AccountRules.sites([], for: .manager) }?.contains("at least one site") == true)
        #expect(detail { try AccountRules.sites(["s1"], for: .manager) } == nil)
        #expect(detail { try AccountRules.sites(["s1"], for: .hr) }?.contains("sees every site") == true)
        #expect(detail { _ = try AccountRules.role("admin") }?.contains("owner, hr, manager, auditor") == true)
    }

    @Test func aTOTPCodeIsSixDigits() throws {
        #expect(try AccountRules.totpCode("123 456") == 123_456)
        #expect(detail { _ = try AccountRules.totpCode("12345") } != nil)
        #expect(detail { _ = try AccountRules.totpCode("١٢٣٤٥٦") } != nil)  // Arabic-Indic digits are not ASCII
    }

    @Test func aSiteScopePermitsOnlyItsSites() {
        let scope = SiteScope.only(["s1"])
        #expect(scope.permits("s1") && !scope.permits("s2") && SiteScope.all.permits("s2"))
        #expect(detail { try SiteScope.require("s2", in: scope) }?.contains("site 's2'") == true)
    }

    @Test func confidenceFollowsTheSessionThenThePhone() {
        let now = Date(timeIntervalSince1970: 1_795_338_000)
        #expect(PresenceConfidence.of(sessionLastSeen: now - 3_600, deviceLastSeen: nil, now: now) == .confirmed)
        #expect(PresenceConfidence.of(sessionLastSeen: now - 3_601, deviceLastSeen: now - 60, now: now) == .unconfirmed)
        #expect(PresenceConfidence.of(sessionLastSeen: now - 3_601, deviceLastSeen: now - 3_601, now: now) == .silent)
        #expect(PresenceConfidence.of(sessionLastSeen: now - 7_200, deviceLastSeen: nil, now: now) == .silent)
    }
}
