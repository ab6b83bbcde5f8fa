import Foundation

/// A String Catalog (`Localizable.xcstrings`, the JSON Xcode edits), read on any platform: the
/// console shows its texts from one, and the app's tests resolve the app's texts from its own.
/// Keys are the English text; a value may vary by plural category (`one`, `other`).
public struct StringCatalogue: Sendable {
    public enum Entry: Sendable, Equatable {
        case text(String)
        case plural(one: String, other: String)
    }

    private let entries: [String: [String: Entry]]

    /// The catalogue in `data`; every key must have a value in each of `languages` (codes such as
    /// `en`, `de`), or this throws naming the key and the language.
    public init(xcstrings data: Data, languages: [String]) throws {
        let file = try JSONDecoder().decode(CatalogueFile.self, from: data)
        var entries: [String: [String: Entry]] = [:]
        for (key, string) in file.strings {
            for language in languages {
                guard let entry = string.localizations?[language]?.entry else {
                    throw StringCatalogueError(key: key, language: language)
                }
                entries[language, default: [:]][key] = entry
            }
        }
        self.entries = entries
    }

    public func keys(_ language: String) -> Set<String> { Set(entries[language].map { Array($0.keys) } ?? []) }

    public func entry(_ key: String, _ language: String) -> Entry? { entries[language]?[key] }

    /// A lookup for `LocalizedText.resolved(by:)`: a key's value in `language` (a plural's
    /// `other`, since a text's counts choose their key), nil for a key the catalogue lacks.
    public func lookup(_ language: String) -> @Sendable (String) -> String? {
        let values = entries[language] ?? [:]
        return { key in
            switch values[key] {
            case .text(let value): value
            case .plural(_, let other): other
            case nil: nil
            }
        }
    }
}

/// A String Catalog key without a value in one of the languages asked for.
public struct StringCatalogueError: Error, CustomStringConvertible {
    public var key: String
    public var language: String

    public init(key: String, language: String) {
        self.key = key
        self.language = language
    }

    public var description: String { "the String Catalog has no \(language) value for '\(key)'" }
}

/// The parts of Xcode's String Catalog format read here.
private struct CatalogueFile: Decodable {
    struct Unit: Decodable { var value: String }
    struct Localization: Decodable {
        struct Variations: Decodable {
            struct Case: Decodable { var stringUnit: Unit }
            var plural: [String: Case]?
        }
        var stringUnit: Unit?
        var variations: Variations?

        var entry: StringCatalogue.Entry? {
            if let plural = variations?.plural, let other = plural["other"]?.stringUnit.value {
                return .plural(one: plural["one"]?.stringUnit.value ?? other, other: other)
            }
            return stringUnit.map { .text($0.value) }
        }
    }
    struct LocalizedString: Decodable { var localizations: [String: Localization]? }
    var strings: [String: LocalizedString]
}
