import AttendanceRules
import Foundation
import Testing

@testable import AttendanceConsole

/// A list's pages: the next page starts after the last row shown, the way back follows the trail
/// of positions, and every filter is kept in every link.
@Suite struct PagerTests {
    @Test func linksKeepTheFiltersAndTheWayBack() {
        let first = Pager(
            path: "/console/sessions", filters: [("site", "hq"), ("q", "Zoë & co"), ("from", nil)], form: FormData(""))
        let links = first.data(next: "c1")
        #expect(links["prev"] == nil)
        #expect(links["next"] as? String == "/console/sessions?site=hq&q=Zo%C3%AB%20%26%20co&after=c1")
        let second = Pager(
            path: "/console/sessions", filters: [("site", "hq")], form: FormData("after=c1"))
        #expect(second.data(next: "c2")["prev"] as? String == "/console/sessions?site=hq")
        #expect(second.data(next: "c2")["next"] as? String == "/console/sessions?site=hq&after=c2&trail=c1")
        let third = Pager(path: "/console/sessions", filters: [("site", "hq")], form: FormData("after=c2&trail=c1"))
        let last = third.data(next: nil)
        #expect(last["prev"] as? String == "/console/sessions?site=hq&after=c1")
        #expect(last["next"] == nil)
        #expect(last["first"] as? String == "/console/sessions?site=hq")
    }

    @Test func aPageOfASortedListStartsAfterItsPosition() {
        let names = (1...120).map { String(format: "p%03d", $0) }
        var seen: [String] = []
        var after: String?
        repeat {
            let (page, next) = Pager.page(names, after: after, size: 50, key: { [$0] })
            seen += page
            after = next
        } while after != nil
        #expect(seen == names)
        // A position whose row was removed meanwhile still gives the rows after it.
        let (page, _) = Pager.page(names.filter { $0 != "p050" }, after: Pager.token(["p050"]), size: 2, key: { [$0] })
        #expect(Array(page) == ["p051", "p052"])
    }

    @Test func aSearchFindsByWordsOfTheNameNumberOrEmail() {
        let ada = EmployeeRecord(id: "u1", name: "Ada Lovelace-Byron", externalId: "E-1042", email: "ada@example.com")
        #expect(EmployeeSearch.matches("lovelace ada", ada))
        #expect(EmployeeSearch.matches("ADA", ada))
        #expect(EmployeeSearch.matches("1042", ada))
        #expect(EmployeeSearch.matches("ada@example", ada))
        #expect(!EmployeeSearch.matches("grace", ada))
        let zoe = EmployeeRecord(id: "u2", name: "Zoë Müller")
        #expect(EmployeeSearch.matches("zoe muller", zoe))
    }

    /// The templates test what a person would: an empty text or a nil is nothing, at any depth,
    /// and the key stays so a row's empty value never shows the page's.
    @Test func emptyTextsAndNilsAreNothingToTheTemplates() throws {
        let revoked: Date? = nil
        let data: [String: Any] = [
            "rows": [["revoked": "", "name": "Ada", "site": revoked as Any]], "next": "", "count": 3,
        ]
        let shown = try #require(Renderer.shown(data) as? [String: Any])
        #expect(shown["next"] is NSNull)
        #expect(shown["count"] as? Int == 3)
        let row = try #require((shown["rows"] as? [Any])?.first as? [String: Any])
        #expect(row["revoked"] is NSNull)
        #expect(row["site"] is NSNull)
        #expect(row["name"] as? String == "Ada")
        let renderer = try Renderer()
        let html = renderer.render(
            "devices",
            [
                "title": "Devices", "hasRows": true, "csrf": "t",
                "rows": [["id": "d1", "name": "Ada", "revoked": "", "mayRevoke": true]],
            ], in: .english)
        #expect(!html.contains("revoked "))
        #expect(html.contains("Revoke</button>"))
    }

    /// The sign-in form's token verifies only when this deployment's key signed it.
    @Test func aSignInTokenIsOneThisDeploymentMade() {
        let key = Array("key-of-this-deployment".utf8)
        let token = SignInFormKey.token(random: "r4nd0m", key: key)
        #expect(SignInFormKey.verifies(field: token, cookie: token, key: key))
        #expect(!SignInFormKey.verifies(field: token, cookie: token, key: Array("another".utf8)))
        #expect(!SignInFormKey.verifies(field: "r4nd0m.forged", cookie: "r4nd0m.forged", key: key))
        #expect(!SignInFormKey.verifies(field: token, cookie: nil, key: key))
        #expect(!SignInFormKey.verifies(field: "plain", cookie: "plain", key: key))
    }
}
