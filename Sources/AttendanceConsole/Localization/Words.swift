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

    func date(_ day: LocalDate) -> String { language.date(day) }
    func number(_ value: Int) -> String { language.number(value) }
}
