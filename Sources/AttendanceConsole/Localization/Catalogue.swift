import Foundation

/// Every text the console shows, in every language: a String Catalog (`Localizable.xcstrings`,
/// the format Xcode edits), keyed by the English text. A value may hold positional arguments
/// (`%@`, `%1$@`, `%lld`) and, in templates, Mustache variables (`{{name}}`); a key with a count
/// may vary by plural category (English and German both have `one` and `other`).
struct Catalogue: Sendable {
    enum Entry: Sendable, Equatable {
        case text(String)
        case plural(one: String, other: String)
    }

    private let entries: [Language: [String: Entry]]

    /// The catalogue in a String Catalog's JSON; every key must have every language, or this
    /// throws naming the key and the language.
    init(xcstrings data: Data) throws {
        let file = try JSONDecoder().decode(StringCatalog.self, from: data)
        var entries: [Language: [String: Entry]] = [:]
        for (key, string) in file.strings {
            for language in Language.allCases {
                guard let localization = string.localizations?[language.rawValue], let entry = localization.entry
                else { throw CatalogueError(key: key, language: language) }
                entries[language, default: [:]][key] = entry
            }
        }
        self.entries = entries
    }

    /// The catalogue bundled with the console.
    static func bundled() throws -> Catalogue {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "xcstrings") else {
            throw CatalogueError(key: "Localizable.xcstrings", language: .english)
        }
        return try Catalogue(xcstrings: Data(contentsOf: url))
    }

    var keys: Set<String> { Set(entries[.english].map { Array($0.keys) } ?? []) }

    func entry(_ key: String, _ language: Language) -> Entry? { entries[language]?[key] }

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

    /// The value with its specifiers replaced: `%@`, `%lld`, `%d` take the next argument, `%2$@`
    /// the second; `%%` is a percent sign.
    static func format(_ value: String, _ arguments: [String]) -> String {
        guard value.contains("%") else { return value }
        var result = ""
        var next = 0
        var rest = Substring(value)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                result += "%"
                rest = rest.dropFirst()
                continue
            }
            var position: Int?
            let digits = rest.prefix { $0.isNumber }
            if !digits.isEmpty, rest.dropFirst(digits.count).first == "$" {
                position = Int(digits)
                rest = rest.dropFirst(digits.count + 1)
            }
            let specifier = ["@", "lld", "ld", "d"].first { rest.hasPrefix($0) }
            guard let specifier else {
                result += "%"
                continue
            }
            rest = rest.dropFirst(specifier.count)
            let index = position.map { $0 - 1 } ?? next
            next += 1
            result += arguments.indices.contains(index) ? arguments[index] : ""
        }
        return result + rest
    }
}

/// A String Catalog key without a value in one of the console's languages.
struct CatalogueError: Error, CustomStringConvertible {
    var key: String
    var language: Language
    var description: String { "the console's Localizable.xcstrings has no \(language.rawValue) value for '\(key)'" }
}

/// The parts of Xcode's String Catalog format the console reads.
private struct StringCatalog: Decodable {
    struct Unit: Decodable { var value: String }
    struct Localization: Decodable {
        struct Variations: Decodable {
            struct Case: Decodable { var stringUnit: Unit }
            var plural: [String: Case]?
        }
        var stringUnit: Unit?
        var variations: Variations?

        var entry: Catalogue.Entry? {
            if let plural = variations?.plural, let other = plural["other"]?.stringUnit.value {
                return .plural(one: plural["one"]?.stringUnit.value ?? other, other: other)
            }
            return stringUnit.map { .text($0.value) }
        }
    }
    struct LocalizedString: Decodable { var localizations: [String: Localization]? }
    var strings: [String: LocalizedString]
}
