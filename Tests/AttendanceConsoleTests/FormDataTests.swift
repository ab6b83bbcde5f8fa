import Testing

@testable import AttendanceConsole

/// A browser's form body as the pages read it.
@Suite struct FormDataTests {
    @Test func valuesAreDecodedTrimmedAndRepeatable() throws {
        let form = FormData("email=ada%40x.io&reason=+late+bus+&sites=s1&sites=s2&empty=&csrf=a%2Bb&name=%D7%A2%D7%91")
        #expect(form["email"] == "ada@x.io")
        #expect(form["reason"] == "late bus")
        #expect(form["empty"] == nil && form["missing"] == nil)
        #expect(form.all("sites") == ["s1", "s2"])
        #expect(form["csrf"] == "a+b")
        #expect(form["name"] == "עב")
        #expect(throws: Problem.self) { try form.required("missing", label: "reason") }
    }

    @Test func csrfTokensMatchOnlyWhenEqual() {
        #expect(ConsoleSecurity.csrfMatches("abc", "abc"))
        #expect(!ConsoleSecurity.csrfMatches("abd", "abc"))
        #expect(!ConsoleSecurity.csrfMatches("ab", "abc"))
        #expect(!ConsoleSecurity.csrfMatches(nil, "abc"))
    }
}
