import AttendanceModels
import Foundation

/// Every text the console shows, in every language: a String Catalog (`Localizable.xcstrings`,
/// the format Xcode edits), keyed by the English text. A value may hold positional arguments
/// (`%@`, `%1$@`, `%lld`) and, in templates, Mustache variables (`{{name}}`); a key with a count
/// may vary by plural category (English and German both have `one` and `other`).
struct Catalogue: Sendable {
    typealias Entry = StringCatalogue.Entry

    private let file: StringCatalogue

    /// The catalogue in a String Catalog's JSON; every key must have every language, or this
    /// throws naming the key and the language.
    init(xcstrings data: Data) throws {
        file = try StringCatalogue(xcstrings: data, languages: Language.allCases.map(\.rawValue))
    }

    /// The catalogue bundled with the console.
    static func bundled() throws -> Catalogue {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "xcstrings") else {
            throw CatalogueError(key: "Localizable.xcstrings", language: Language.english.rawValue)
        }
        return try Catalogue(xcstrings: Data(contentsOf: url))
    }

    var keys: Set<String> { file.keys(Language.english.rawValue) }

    func entry(_ key: String, _ language: Language) -> Entry? { file.entry(key, language.rawValue) }

    /// `key` in `language`, its arguments in place; the key itself (English) when the catalogue
    /// lacks it (`scripts/check-strings` and the tests keep that from shipping).
    func text(_ key: String, _ language: Language, _ arguments: [String]) -> String {
        switch entry(key, language) {
        case .text(let value): Self.format(value, arguments)
        case .plural(_, let other): Self.format(other, arguments)
        case nil: Self.format(key, arguments)
        }
    }

    /// `key` for `count` things (its first argument), in the plural category of `count`.
    func plural(_ key: String, count: Int, _ language: Language, _ arguments: [String]) -> String {
        let all = [language.number(count)] + arguments
        switch entry(key, language) {
        case .plural(let one, let other): return Self.format(count == 1 ? one : other, all)
        case .text(let value): return Self.format(value, all)
        case nil: return Self.format(key, all)
        }
    }

    /// The value with its specifiers replaced (`LocalizedText.fill`: `%@`, `%lld`, `%d` take the
    /// next argument, `%2$@` the second; `%%` is a percent sign).
    static func format(_ value: String, _ arguments: [String]) -> String { LocalizedText.fill(value, arguments) }
}

/// A String Catalog key without a value in one of the console's languages.
typealias CatalogueError = StringCatalogueError
