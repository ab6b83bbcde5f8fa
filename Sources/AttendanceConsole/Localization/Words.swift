import AttendanceRules

/// The catalogue in one request's language: what a page's code calls to say something.
/// `t("Signed out")`, `t("%@ was deactivated", name)`, `tp("%lld people", count: n)`; the keys
/// are the English texts, and `scripts/check-strings` finds every one in the catalogue.
struct Words: Sendable {
    let catalogue: Catalogue
    let language: Language

    func t(_ key: String, _ arguments: String...) -> String { catalogue.text(key, language, arguments) }

    /// For `count` things: the key's plural form for the count, which is its first argument.
    func tp(_ key: String, count: Int, _ arguments: String...) -> String {
        catalogue.plural(key, count: count, language, arguments)
    }

    /// A text that may be a key (a refusal's title or detail written as a literal): translated
    /// when the catalogue has it, else as it is (the server's own wording, in English).
    func known(_ text: String) -> String {
        catalogue.entry(text, language) == nil ? text : catalogue.text(text, language, [])
    }

    /// A refusal's detail in this language. The core writes a field's refusal as
    /// "'field' is 'value'; expected …" (`DomainError.field`): the sentence is the catalogue's, the
    /// field and value stay as they are (they are what was sent), and what is expected is
    /// translated when the catalogue has it. Any other detail as `known`.
    func refusal(_ detail: String) -> String {
        if let match = detail.wholeMatch(of: #/'([A-Za-z][A-Za-z0-9.]*)' is '(.*)'; expected (.+)/#) {
            return t(
                "'%@' is '%@'; expected %@", String(match.output.1), String(match.output.2),
                expected(String(match.output.3)))
        }
        if let match = detail.wholeMatch(of: #/'([A-Za-z][A-Za-z0-9.]*)' is missing; expected (.+)/#) {
            return t("'%@' is missing; expected %@", String(match.output.1), expected(String(match.output.2)))
        }
        return known(detail)
    }

    /// What a field takes, translated when the catalogue has it; "one of a, b" keeps its list.
    private func expected(_ text: String) -> String {
        if catalogue.entry(text, language) != nil { return known(text) }
        if text.hasPrefix("one of ") { return t("one of %@", String(text.dropFirst("one of ".count))) }
        return text
    }

    func date(_ day: LocalDate) -> String { language.date(day) }
    func number(_ value: Int) -> String { language.number(value) }
}
